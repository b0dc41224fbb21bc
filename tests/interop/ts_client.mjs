// The official TypeScript SDK client (@modelcontextprotocol/sdk) driving an MCP server:
//   node ts_client.mjs PLAN.json stdio COMMAND ARGS...
//   node ts_client.mjs PLAN.json http URL
// PLAN.json is [{"name", "arguments"}, ...]. Prints one JSON line: {"protocolVersion", "tools"
// (names), "catalogue" (the tools as the client read them), "calls": [{"result": ...} |
// {"error": {"name", "code", "message", "data"}}]}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [planFile, kind, ...target] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const transport = kind === "stdio"
  ? new StdioClientTransport({ command: target[0], args: target.slice(1), env: process.env, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target[0]));
// The client tells the transport the negotiated version (HTTP keeps it for its header; stdio
// has no setter): note it on the way through.
let protocolVersion = null;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
  protocolVersion = version;
  setVersion?.(version);
};
const client = new Client({ name: "workbench-interop-ts", version: "0" });
await client.connect(transport);
const catalogue = (await client.listTools()).tools;
const tools = catalogue.map((tool) => tool.name);
const calls = [];
for (const call of plan) {
  try {
    calls.push({ result: await client.callTool({ name: call.name, arguments: call.arguments }) });
  } catch (error) {
    calls.push({ error: { name: error.constructor.name, code: error.code, message: error.message, data: error.data ?? null } });
  }
}
await client.close();
console.log(JSON.stringify({ protocolVersion, tools, catalogue, calls }));
