package appliance

// HeightRequest asks for the smallest antenna height that meets the
// clearance rules and a target margin on one tower–receiver path
// (POST /ai/suggest-height). The search is the engine's (appliance/planner);
// an AI only explains its result.
type HeightRequest struct {
	Pair PairRequest // the path, the link budget and the engine; Pair.RxHeightM is the current receiver height
	// Move is the end whose height is searched: HeightMoveReceiver or
	// HeightMoveTower; the other end keeps its height.
	Move string
	// TargetMarginDB is the link margin the height must reach, dB.
	TargetMarginDB float64
	StepM          float64 // search step, metres (heights are multiples of it)
	MaxHeightM     float64 // search cap, metres above ground
}

// The ends a HeightRequest can move.
const (
	HeightMoveReceiver = "receiver"
	HeightMoveTower    = "tower"
)

// HeightSuggestion is the answer to a HeightRequest.
type HeightSuggestion struct {
	Request HeightRequest
	// Current is the link at the heights as given.
	Current *LinkCandidate
	// Found is false when no height on the grid up to MaxHeightM meets
	// every rule; HeightM is then 0 and At nil.
	Found   bool
	HeightM float64 // metres above ground, a multiple of StepM
	// At is the link with the moving end at HeightM.
	At *LinkCandidate
	// Geometric minimum heights of the moving end (exact on the profile,
	// rounded up to the centimetre; planner package doc) with the other end
	// as given.
	MinLOS, MinFresnel60 MinHeight
	Evaluated            int // heights whose link budget the engine computed
	// FailingRule names what the highest searched height still misses
	// when Found is false: "line_of_sight", "fresnel60" or "margin".
	FailingRule string
}
