// Placeholder until NodeKitTests is written.
