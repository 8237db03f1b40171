package server

import (
	"context"
	"errors"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// toRPCError maps an engine failure onto the wire:
//
//  1. invalid_arguments and unknown_tool are -32602 with retry true;
//  2. other retry kinds are -32001;
//  3. fatal kinds are -32002;
//  4. a call cancelled through $/cancel_request keeps its context error, which rpc answers -32800;
//  5. anything that is not an *engine.Error is an internal error, logged, never shown verbatim.
func (s *session) toRPCError(ctx context.Context, err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.internal(err)
	}
	retry, known := schema.LookupErrorKind(ee.Kind)
	if !known {
		return s.internal(err)
	}
	code := schema.CodeFatal
	switch {
	case ee.Kind == schema.KindInvalidArguments || ee.Kind == schema.KindUnknownTool:
		code = schema.CodeInvalidParams
	case retry:
		code = schema.CodeRetry
	}
	if ee.Kind == schema.KindChangeRequestFailed && ctx.Err() != nil {
		return ctx.Err()
	}
	return &rpc.Error{Code: int64(code), Message: ee.Msg, Data: schema.ErrorData{Kind: ee.Kind, Retry: retry, CountsAsRetry: schema.CountsAsRetryFor(ee.Op, ee.Kind), Path: ee.Path}}
}

func invalidParams(msg string) *rpc.Error {
	return &rpc.Error{Code: schema.CodeInvalidParams, Message: msg, Data: schema.ErrorData{Kind: schema.KindInvalidArguments, Retry: true, CountsAsRetry: true}}
}

// internalError is the wire form of a bug in the server; the cause goes to the log (see
// session.internal), never to the client.
func internalError() *rpc.Error {
	return &rpc.Error{Code: schema.CodeFatal, Message: schema.InternalErrorMessage, Data: schema.ErrorData{Kind: schema.KindInternal}}
}
