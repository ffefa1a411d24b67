package provider

// FinishUsage fills the derived fields of u once a reply's token counts are known: the total,
// as pi counts it, and the cost at the model's prices.
func FinishUsage(u *Usage, cost ModelCost) {
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	cost.Apply(u)
}
