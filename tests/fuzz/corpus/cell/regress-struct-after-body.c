struct{}
struct e