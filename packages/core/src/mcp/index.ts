export { McpConfigError, McpServerError } from './mcp-errors.js';
export {
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  DEFAULT_MCP_TIMEOUT_MS,
  type McpHttpServerProps,
  McpServer,
  type McpServerProps,
  type McpStdioServerProps,
} from './mcp-server.js';
