// Placeholder until the policy engine tests land.
