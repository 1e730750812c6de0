// Placeholder until the plugin host lands.
