"use strict";
// Jest: `globalSetup: "kura-dynamodb/jest-global-setup"` with
// `globalTeardown: "kura-dynamodb/jest-global-teardown"`. One server for the run; the
// endpoint is in KURA_ENDPOINT and AWS_ENDPOINT_URL_DYNAMODB for the test workers.
const { startKura, exportEndpoint } = require("./index.js");

module.exports = async function globalSetup() {
  const kura = await startKura();
  exportEndpoint(kura.endpoint);
  globalThis.__KURA__ = kura;
};
