// Package relpath is the algebra of root-relative paths: splitting a spelling into components,
// joining them back ("." is the root), lexical cleaning, parents, ancestors and children, and
// the limits on a path's length in bytes and components (MaxBytes, MaxComponents).
//
// Every function works on strings alone and never touches the disk. It protects against paths
// whose resolution would cost unbounded work (the limits bound the system calls of one
// resolution) and against ".." leaving the root lexically (Clean answers "" for that). It does
// not decide where a path leads on disk: symlinks, mounts and swaps are the engine's descriptor
// walks' business, and a lexically clean path may still resolve outside the root.
package relpath
