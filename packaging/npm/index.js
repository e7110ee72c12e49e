"use strict";
// Kura for Node tests: startKura() runs `kura serve --in-memory --test-controls` on a free
// port and resolves once it is ready; the Jest and Vitest global setups use it and export
// its endpoint in the variables the AWS SDK for JavaScript v3 reads.
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

/** The `kura` binary: $KURA_BIN, else the one this package carries. */
function binaryPath() {
  if (process.env.KURA_BIN) return process.env.KURA_BIN;
  const bundled = path.join(__dirname, "vendor", "kura");
  if (!fs.existsSync(bundled)) {
    throw new Error(`kura-dynamodb: no binary at ${bundled} (this platform is Linux x64 only)`);
  }
  return bundled;
}

/**
 * Starts a Kura server. Resolves to { endpoint, reset(), stop() }.
 * @param {{args?: string[], inMemory?: boolean, timeoutMs?: number}} options
 */
function startKura({ args = [], inMemory = true, timeoutMs = 30000 } = {}) {
  const argv = ["serve", "--port", "0", ...(inMemory ? ["--in-memory", "--test-controls"] : []), ...args];
  const child = spawn(binaryPath(), argv, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, KURA_LOG: process.env.KURA_LOG || "info" },
  });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kura serve was not ready in ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`kura serve exited (${code}):\n${log}`));
    });
    child.stderr.on("data", (chunk) => {
      log += chunk.toString();
      const found = /kura ready on (https?:\/\/\S+)/.exec(log);
      if (!found) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.stderr.removeAllListeners("data");
      child.stderr.resume();
      const endpoint = found[1];
      resolve({
        endpoint,
        process: child,
        /** Empties the server: no tables, backups or exports. */
        async reset() {
          const answer = await fetch(`${endpoint}/kura/admin/reset`, { method: "POST" });
          if (!answer.ok) throw new Error(`reset: ${answer.status} ${await answer.text()}`);
        },
        stop() {
          return new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          });
        },
      });
    });
  });
}

/** Points the AWS SDK v3 (and anything reading these) at `endpoint`. */
function exportEndpoint(endpoint) {
  process.env.KURA_ENDPOINT = endpoint;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.AWS_ENDPOINT_URL_DYNAMODB_STREAMS = endpoint;
  process.env.AWS_REGION = process.env.AWS_REGION || "us-east-1";
  process.env.AWS_ACCESS_KEY_ID = process.env.AWS_ACCESS_KEY_ID || "kura";
  process.env.AWS_SECRET_ACCESS_KEY = process.env.AWS_SECRET_ACCESS_KEY || "kura";
}

module.exports = { binaryPath, startKura, exportEndpoint };
