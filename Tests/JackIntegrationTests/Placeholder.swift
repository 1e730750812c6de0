// Placeholder until JackIntegrationTests is written.
