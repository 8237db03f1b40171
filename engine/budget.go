package engine

import "github.com/fsbox/fsbox/engine/internal/text"

// newBudget starts the output budget of one result (text.Budget, rule 1 there) at max_output_chars.
func (e *Engine) newBudget() text.Budget { return text.Budget{Limit: e.maxOutputChars} }
