package standby

// StateReadErrorForTest is stateReadError, for the external tests.
var StateReadErrorForTest = stateReadError
