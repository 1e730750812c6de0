// Placeholder until AudioGraphTests is written.
