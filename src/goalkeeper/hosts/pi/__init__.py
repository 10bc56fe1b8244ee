"""Pi: the bridge to goalkeeper's TypeScript extension, its protocol, settling,
install and RPC runs."""
