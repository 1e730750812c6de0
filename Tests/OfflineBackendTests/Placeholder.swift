// Placeholder until OfflineBackendTests is written.
