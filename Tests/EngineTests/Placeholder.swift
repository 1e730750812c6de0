// Placeholder until EngineTests is written.
