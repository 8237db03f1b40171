package mcpserver

import "github.com/fsbox/fsbox/engine"

// auditSession is a new session of the host's audit log for one engine, nil without a log.
func auditSession(l *engine.AuditLog) *engine.AuditSession {
	if l == nil {
		return nil
	}
	return l.Session()
}
