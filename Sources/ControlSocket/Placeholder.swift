// Placeholder until the control socket lands.
