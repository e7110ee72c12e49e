#!/usr/bin/env node
// `npx kura ...`: runs the bundled static binary with the same arguments, signals and
// exit status.
"use strict";
const { spawn } = require("node:child_process");
const { binaryPath } = require("../index.js");

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
