"""goalkeeper's MCP server (the todo, workflow and approval tools), its elicitation forms, and
where a call comes from."""
