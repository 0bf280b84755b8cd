package fsx

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The lint below keeps fsx the one owner of the data directory: outside
// fsx, non-test code may not create, write-open, rename, remove, truncate,
// fsync or make directories with the os, syscall or unix packages, because
// a write that bypasses the FS a server is given is one the crash tests
// (CrashFS) cannot see, cut or fail. It resolves every identifier with
// go/types, so an aliased import, a method value (f := file.Sync) or a
// *os.File embedded in a struct are caught as well as a plain call.

// bannedCalls are the functions and methods (types.Func.FullName) that
// write to a file system.
var bannedCalls = map[string]bool{
	"os.Create": true, "os.CreateTemp": true, "os.OpenFile": true, "os.WriteFile": true,
	"os.Rename": true, "os.Remove": true, "os.RemoveAll": true, "os.Truncate": true,
	"os.Mkdir": true, "os.MkdirAll": true, "os.MkdirTemp": true, "os.Link": true, "os.Symlink": true,
	"(*os.File).Sync": true, "(*os.File).Truncate": true,
	"io/ioutil.WriteFile": true, "io/ioutil.TempFile": true, "io/ioutil.TempDir": true,
	"syscall.Open": true, "syscall.Creat": true, "syscall.Rename": true, "syscall.Unlink": true,
	"syscall.Rmdir": true, "syscall.Mkdir": true, "syscall.Truncate": true, "syscall.Ftruncate": true,
	"syscall.Fsync": true, "syscall.Fdatasync": true, "syscall.Sync": true,
	"golang.org/x/sys/unix.Open": true, "golang.org/x/sys/unix.Openat": true, "golang.org/x/sys/unix.Creat": true,
	"golang.org/x/sys/unix.Rename": true, "golang.org/x/sys/unix.Renameat": true, "golang.org/x/sys/unix.Renameat2": true,
	"golang.org/x/sys/unix.Unlink": true, "golang.org/x/sys/unix.Unlinkat": true, "golang.org/x/sys/unix.Rmdir": true,
	"golang.org/x/sys/unix.Mkdir": true, "golang.org/x/sys/unix.Mkdirat": true,
	"golang.org/x/sys/unix.Truncate": true, "golang.org/x/sys/unix.Ftruncate": true,
	"golang.org/x/sys/unix.Fsync": true, "golang.org/x/sys/unix.Fdatasync": true, "golang.org/x/sys/unix.Sync": true,
	"golang.org/x/sys/unix.Fallocate": true, "golang.org/x/sys/unix.SyncFileRange": true,
}

// lintAllowed are the places outside fsx that may call them, each with its
// reason: a package (module-relative path) or one function of it
// ("pkg.Func", "pkg.Type.Method"). None writes inside a data directory a
// server keeps: at most they make and remove a throwaway one.
// An entry nothing needs any more fails the test, so the list cannot rot.
var lintAllowed = map[string]string{
	// A FUSE file system is itself the layer under the data directory: it
	// keeps its files in a backing directory and writes the durable state
	// there on a simulated power cut; fsx.FS has no passthrough of that.
	"cmd/crashfs": "FUSE crash file system: writes its backing store",
	// Developer tools that never run against a data directory.
	"cmd/gencommands": "code generator: writes the generated Go file and a scratch dir",
	"cmd/timeline":    "benchmark tool: makes and removes scratch dirs for the servers it starts, writes plots",
	// Test support (imported only by tests): scratch dirs and config
	// files for the servers a test starts.
	"internal/testsrv": "test support: makes and removes the scratch dirs and config files of test servers",
	// --check-aof --replay loads the files into a scratch server whose
	// dir is a fresh directory under os.TempDir, removed afterwards.
	"cmd/server.startReplayer":  "scratch dir of the replay server",
	"cmd/server.replayer.close": "removes the replay server's scratch dir",
}

// goListPkg is the part of `go list -json` the lint reads.
type goListPkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Export     string
	Standard   bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

func TestLintDataDirWritesGoThroughFsx(t *testing.T) {
	root := moduleRoot(t)
	// Packages allowed as a whole are not even built: their export data
	// (and their dependencies', e.g. the plotting library) is not needed.
	listed := goList(t, root, "-f", "{{.ImportPath}} {{.Module.Path}}", "./...")
	var pkgArgs []string
	used := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(listed)), "\n") {
		ip, mod, _ := strings.Cut(line, " ")
		if rel, ok := strings.CutPrefix(ip, mod+"/"); ok {
			if _, allowed := lintAllowed[rel]; allowed {
				used[rel] = true
				continue
			}
		}
		pkgArgs = append(pkgArgs, ip)
	}
	out := goList(t, root, append([]string{"-e", "-export", "-deps", "-json"}, pkgArgs...)...)
	var pkgs []goListPkg
	export := map[string]string{}
	modPath := ""
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goListPkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		export[p.ImportPath] = p.Export
		pkgs = append(pkgs, p)
		if p.ImportPath == "github.com/aofserver/aofserver/fsx" {
			modPath = p.Module.Path
		}
	}
	if modPath == "" {
		t.Fatal("go list did not list the fsx package")
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(f)
	})
	var found []string
	checked := 0
	for _, p := range pkgs {
		if p.Standard || p.Module == nil || p.Module.Path != modPath {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modPath), "/")
		if rel == "fsx" {
			continue
		}
		if _, ok := lintAllowed[rel]; ok {
			continue // a dependency of a linted package
		}
		checked++
		found = append(found, lintPackage(t, fset, imp, p, rel, used)...)
	}
	if checked < 8 {
		t.Fatalf("linted only %d packages: go list found too few", checked)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: write to the file system outside fsx (use an fsx.FS: the server's s.fsys(), or fsx.OS() for files outside the data directory)", f)
	}
	for k := range lintAllowed {
		if !used[k] {
			t.Errorf("lintAllowed[%q] is not needed any more: remove it", k)
		}
	}
}

// lintPackage type-checks p's non-test files and returns the banned uses
// ("file:line: name"), skipping the allowed functions (marked in used).
func lintPackage(t *testing.T, fset *token.FileSet, imp types.Importer, p goListPkg, rel string, used map[string]bool) []string {
	t.Helper()
	var files []*ast.File
	for _, name := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", p.ImportPath, err)
	}
	var found []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			key := rel
			if ok {
				key = rel + "." + funcName(fd)
			}
			ast.Inspect(d, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || !bannedCalls[fn.FullName()] {
					return true
				}
				if _, ok := lintAllowed[key]; ok {
					used[key] = true
					return true
				}
				pos := fset.Position(id.Pos())
				found = append(found, filepath.Join(rel, filepath.Base(pos.Filename))+":"+itoa(pos.Line)+": "+fn.FullName())
				return true
			})
		}
	}
	return found
}

// funcName is "Func" or "Type.Method" (pointer receivers without the star).
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr: // generic receiver
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// goList runs go list in the module's root.
func goList(t *testing.T, root string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not in a module")
	}
	return filepath.Dir(gomod)
}
