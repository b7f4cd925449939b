package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type funcLen struct {
	pos   string
	name  string
	lines int
}

func main() {
	max := flag.Int("max", 0, "list functions longer than this many lines and fail if any (0: off)")
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	byPkg := map[string][]funcLen{}
	for _, root := range dirs {
		if err := collect(root, byPkg); err != nil {
			fmt.Fprintln(os.Stderr, "funclen:", err)
			os.Exit(2)
		}
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	fmt.Printf("%-36s %6s %6s %6s %6s  %s\n", "package", "funcs", "median", "p90", "max", "longest")
	var over []funcLen
	for _, p := range pkgs {
		fs := byPkg[p]
		sort.Slice(fs, func(i, j int) bool { return fs[i].lines < fs[j].lines })
		top := fs[len(fs)-1]
		fmt.Printf("%-36s %6d %6d %6d %6d  %s\n", p, len(fs), percentile(fs, 50), percentile(fs, 90), top.lines, top.name)
		for _, f := range fs {
			if *max > 0 && f.lines > *max {
				over = append(over, f)
			}
		}
	}
	if len(over) > 0 {
		fmt.Printf("\nover %d lines:\n", *max)
		for _, f := range over {
			fmt.Printf("  %4d  %s  %s\n", f.lines, f.name, f.pos)
		}
		os.Exit(1)
	}
}

// percentile is the nearest-rank percentile of lengths sorted ascending.
func percentile(fs []funcLen, p int) int {
	rank := (p*len(fs) + 99) / 100
	if rank < 1 {
		rank = 1
	}
	return fs[rank-1].lines
}

func collect(root string, byPkg map[string][]funcLen) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.Dir(path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start := fset.Position(fd.Pos())
			end := fset.Position(fd.End())
			byPkg[pkg] = append(byPkg[pkg], funcLen{
				pos:   fmt.Sprintf("%s:%d", path, start.Line),
				name:  funcName(fd),
				lines: end.Line - start.Line + 1,
			})
		}
		return nil
	})
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
