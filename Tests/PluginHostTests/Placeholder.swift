// Placeholder until the plugin host tests land.
