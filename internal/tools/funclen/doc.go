// Command funclen prints the length of the functions of each package in the
// tree (non-test files): count, median, p90 and the longest, so a target such
// as "no function over 50 lines" is a command anyone can rerun:
//
//	go run ./internal/tools/funclen [-max 50] [dir ...]
//
// A function's length is its lines from the func keyword to the closing
// brace. With -max N it lists every function over N lines and exits 1 if
// there is one.
package main
