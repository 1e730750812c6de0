// Placeholder until the control socket tests land.
