"use strict";
// Vitest: `test.globalSetup: ["kura-dynamodb/vitest-global-setup"]`. One server for the
// run; its endpoint in KURA_ENDPOINT and AWS_ENDPOINT_URL_DYNAMODB; stopped at the end.
const { startKura, exportEndpoint } = require("./index.js");

module.exports = async function setup() {
  const kura = await startKura();
  exportEndpoint(kura.endpoint);
  return () => kura.stop();
};
