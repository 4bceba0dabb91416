//go:build !(unix || windows)

package pactdir

// platformConditions: only permission errors (fs.ErrPermission) are known
// on this system.
var platformConditions []struct {
	cond condition
	errs []error
}
