package luabind

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// ErrNotFound is returned by Load when the test name is neither a file nor
// a module on the search path. Its text is sysbench's.
type ErrNotFound struct{ Name string }

func (e *ErrNotFound) Error() string {
	return fmt.Sprintf("Cannot find benchmark '%s': no such built-in test, file or module", e.Name)
}

// protoCache compiles each Lua file once per process; every Lua state
// instantiates the shared, read-only protos (gopher-lua's "sharing byte
// code between states"). Keys are the file's path as found, or
// "bundled:NAME" for embedded scripts.
type protoCache struct {
	mu     sync.Mutex
	protos map[string]*lua.FunctionProto
	named  map[*lua.FunctionProto]libSet // the optional libraries each names
	union  libSet                        // all of them
}

// libs returns the optional libraries that the chunks compiled so far name.
func (c *protoCache) libs() libSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.union
}

// libsOf returns the optional libraries that p, a chunk of this cache,
// names.
func (c *protoCache) libsOf(p *lua.FunctionProto) libSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.named[p]
}

func (c *protoCache) get(key, chunkName string, read func() ([]byte, error)) (*lua.FunctionProto, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.protos[key]; ok {
		return p, nil
	}
	src, err := read()
	if err != nil {
		return nil, err
	}
	p, err := compile(src, chunkName)
	if err != nil {
		return nil, err
	}
	if c.protos == nil {
		c.protos = map[string]*lua.FunctionProto{}
		c.named = map[*lua.FunctionProto]libSet{}
	}
	c.protos[key] = p
	libs := libsNamedBy(p)
	c.named[p] = libs
	c.union |= libs
	return p, nil
}

// compile parses and compiles Lua source. Syntax errors read like LuaJIT's
// ("x.lua:2: unexpected symbol near 'foo'") rather than gopher-lua's.
func compile(src []byte, chunkName string) (*lua.FunctionProto, error) {
	// A shebang line is allowed in script files, as in lua and LuaJIT.
	if bytes.HasPrefix(src, []byte("#")) {
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			src = append([]byte("--"), src[i:]...)
		} else {
			src = nil
		}
	}
	chunk, err := parse.Parse(bytes.NewReader(src), chunkName)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			near, line := pe.Token, pe.Pos.Line
			if near == "" || line < 0 {
				// The parser reports the end of the input as line -1.
				near, line = "<eof>", bytes.Count(src, []byte("\n"))+1
			}
			msg := pe.Message
			if msg == "syntax error" || msg == "parse error" {
				// The parser's generic message; LuaJIT's most common
				// wording for the same situation.
				msg = "unexpected symbol"
			}
			return nil, fmt.Errorf("%s:%d: %s near '%s'", chunkName, line, msg, near)
		}
		return nil, err
	}
	return lua.Compile(chunk, chunkName)
}

// searchPath is sysbench's package.path (spec §1.12) without its DATADIR
// entry: sbgo's bundled scripts take that place and are searched after the
// disk, unless LUA_PATH replaces the default without ";;".
func defaultSearchPath() string {
	p := "./?.lua;./?/init.lua;./src/lua/?.lua;"
	if home := os.Getenv("HOME"); home != "" {
		p += home + "/.luarocks/share/lua/5.1/?.lua;" + home + "/.luarocks/share/lua/5.1/?/init.lua;" +
			home + "/.luarocks/share/lua/?.lua;" + home + "/.luarocks/share/lua/?/init.lua;"
	}
	return p + "/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua"
}

// searchPaths returns package.path and whether the bundled scripts are
// searched after it.
func searchPaths() (string, bool) {
	def := defaultSearchPath()
	env, ok := os.LookupEnv("LUA_PATH")
	if !ok || env == "" {
		return def, true
	}
	if strings.Contains(env, ";;") {
		return strings.ReplaceAll(env, ";;", ";"+def+";"), true
	}
	return env, false
}

// finder locates Lua modules on the search path and in the bundled file
// systems, and loads them through the shared proto cache.
type finder struct {
	cache       *protoCache
	bundled     []fs.FS
	path        string
	withBundled bool

	mu   sync.Mutex
	disk map[string]string // module name -> the file it was found in
}

// found records that module name was loaded from the disk file p.
func (f *finder) found(name, p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.disk == nil {
		f.disk = map[string]string{}
	}
	f.disk[name] = p
}

// DiskModules are the modules required so far that were found on the
// disk, by module name, with the files they were found in: what a copy of
// the script elsewhere (sbgo kube's ConfigMap) must take along. Bundled
// modules are not among them.
func (s *Script) DiskModules() map[string]string {
	f := s.finder
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.disk)
}

// find returns the proto of module name (require's name, dots meaning
// directories) or a message listing where it looked.
func (f *finder) find(name string) (*lua.FunctionProto, string, error) {
	file := strings.ReplaceAll(name, ".", "/")
	var tried []string
	for _, pattern := range strings.Split(f.path, ";") {
		if pattern == "" {
			continue
		}
		p := strings.ReplaceAll(pattern, "?", file)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			proto, err := f.cache.get(p, p, func() ([]byte, error) { return os.ReadFile(p) })
			if err == nil {
				f.found(name, p)
			}
			return proto, p, err
		}
		tried = append(tried, "no file '"+p+"'")
	}
	if f.withBundled {
		for _, fsys := range f.bundled {
			p := file + ".lua"
			if _, err := fs.Stat(fsys, p); err == nil {
				proto, err := f.cache.get("bundled:"+p, p, func() ([]byte, error) { return fs.ReadFile(fsys, p) })
				return proto, p, err
			}
		}
		tried = append(tried, "no bundled script '"+file+".lua'")
	}
	return nil, "\n\t" + strings.Join(tried, "\n\t"), nil
}

// loader is the package.loaders entry that replaces gopher-lua's disk
// loader, which cannot see embedded files and compiles on every state.
// Before the module runs, the state opens the optional libraries it
// names (libs.go).
func (st *state) loader(L *lua.LState) int {
	f := st.script.finder
	name := L.CheckString(1)
	proto, msg, err := f.find(name)
	if err != nil {
		L.RaiseError("error loading module '%s':\n\t%s", name, err.Error())
	}
	if proto == nil {
		L.Push(lua.LString(msg))
		return 1
	}
	st.openLibs(f.cache.libsOf(proto))
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}

// resolveScript finds the test script as sysbench does: a file relative
// to the current directory, then a module on the search path.
func (f *finder) resolveScript(name string, stdin io.Reader) (*lua.FunctionProto, error) {
	if name == "" {
		src, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		// LuaJIT names the chunk "=stdin" and prints "stdin:2:"; gopher-lua
		// prints a chunk name as it is.
		return compile(src, "stdin")
	}
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		return f.cache.get(name, name, func() ([]byte, error) { return os.ReadFile(name) })
	}
	// require() turns dots into directories, so "x.lua" is not a module
	// name; "oltp_read_write" is.
	proto, _, err := f.find(name)
	if err != nil {
		return nil, err
	}
	if proto == nil {
		return nil, &ErrNotFound{Name: name}
	}
	return proto, nil
}

// shortName is sysbench's test short name: the basename of the name given.
func shortName(name string) string {
	return path.Base(name)
}

// requireSentinel marks a module being loaded, to detect require loops.
var requireSentinel = lua.LString("\x00sbgo: module loading\x00")

// luaRequire is require(name) with LuaJIT's messages: it asks each of
// package.loaders in turn and, when none finds the module, lists where
// each looked ("module 'x' not found:\n\tno file ...").
func luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable)
	if !ok {
		L.RaiseError("package.loaded must be a table")
	}
	if v := loaded.RawGetString(name); lua.LVAsBool(v) {
		if v == requireSentinel {
			L.RaiseError("loop or previous error loading module '%s'", name)
		}
		L.Push(v)
		return 1
	}
	loaders, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADERS").(*lua.LTable)
	if !ok {
		L.RaiseError("'package.loaders' must be a table")
	}
	var msg strings.Builder
	var module *lua.LFunction
	for i := 1; module == nil; i++ {
		loader := loaders.RawGetInt(i)
		if loader == lua.LNil {
			L.RaiseError("module '%s' not found:%s", name, msg.String())
		}
		L.Push(loader)
		L.Push(lua.LString(name))
		L.Call(1, 1)
		switch ret := L.Get(-1).(type) {
		case *lua.LFunction:
			module = ret
		case lua.LString:
			if !strings.HasPrefix(string(ret), "\n") {
				msg.WriteString("\n\t")
			}
			msg.WriteString(string(ret))
		}
		L.Pop(1)
	}
	loaded.RawSetString(name, requireSentinel)
	L.Push(module)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	ret := L.Get(-1)
	L.Pop(1)
	if ret != lua.LNil {
		loaded.RawSetString(name, ret)
	}
	if loaded.RawGetString(name) == requireSentinel {
		loaded.RawSetString(name, lua.LTrue)
	}
	L.Push(loaded.RawGetString(name))
	return 1
}
