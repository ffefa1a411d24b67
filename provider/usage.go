package provider

// FinishUsage fills the derived fields of u once a reply's token counts are known: the total,
// as pi counts it, and the cost at the model's prices.
func FinishUsage(u *Usage, cost ModelCost) {
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	cost.Apply(u)
}

// ContextTokens is the size of the context as the last reply in msgs reported it: its total,
// or the sum of its parts when the provider gave no total; 0 before any reply with usage.
func ContextTokens(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := msgs[i].Usage; msgs[i].Role == RoleAssistant && u != nil {
			if u.TotalTokens > 0 {
				return u.TotalTokens
			}
			return u.Input + u.Output + u.CacheRead + u.CacheWrite
		}
	}
	return 0
}
