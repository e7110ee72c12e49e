"use strict";
module.exports = async function globalTeardown() {
  if (globalThis.__KURA__) await globalThis.__KURA__.stop();
};
