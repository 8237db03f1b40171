package server

import (
	"context"
	"errors"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// retryKinds maps each error kind to whether the model can fix the call.
var retryKinds = func() map[schema.ErrorKind]bool {
	m := map[schema.ErrorKind]bool{}
	for _, k := range schema.ErrorKinds {
		m[k.Kind] = k.Retry
	}
	return m
}()

// toRPCError maps an engine failure onto the wire:
//
//  1. invalid_arguments and unknown_tool are -32602 with retry true;
//  2. other retry kinds are -32001;
//  3. fatal kinds are -32002;
//  4. a call cancelled through $/cancel_request keeps its context error, which rpc answers -32800;
//  5. anything that is not an *engine.Error is an internal error, logged, never shown verbatim.
func toRPCError(ctx context.Context, err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return internalError(err)
	}
	retry, known := retryKinds[ee.Kind]
	if !known {
		return internalError(err)
	}
	code := schema.CodeFatal
	switch {
	case ee.Kind == "invalid_arguments" || ee.Kind == "unknown_tool":
		code = schema.CodeInvalidParams
	case retry:
		code = schema.CodeRetry
	}
	if ee.Kind == "change_request_failed" && ctx.Err() != nil {
		return ctx.Err()
	}
	return &rpc.Error{Code: int64(code), Message: ee.Msg, Data: schema.ErrorData{Kind: ee.Kind, Retry: retry, Path: ee.Path}}
}

func invalidParams(msg string) *rpc.Error {
	return &rpc.Error{Code: schema.CodeInvalidParams, Message: msg, Data: schema.ErrorData{Kind: "invalid_arguments", Retry: true}}
}

func internalError(err error) *rpc.Error {
	_ = err // the cause stays in the server's log, not on the wire
	return &rpc.Error{Code: schema.CodeFatal, Message: "internal error in the fsbox server", Data: schema.ErrorData{Kind: "internal"}}
}
