// --post-js of the browser build (cmake/web.cmake): C++ exceptions' invoke_* calls into the wasm
// exports themselves rather than through Asyncify's wrappers of them.
//
// With -fexceptions, a call that may throw while something must be destroyed goes out to JS
// (invoke_vii and the like) and back into the wasm through an exported dynCall_*, and stackSave,
// stackRestore and setThrew are exports as well. Asyncify wraps every export (it notes which export
// is the bottom of the stack, to rewind from there, and stops an unwind when the last one returns):
// an array push and pop, a try/finally and a call by `apply` for each, on every such call. The
// simulator makes one for nearly every event it handles (Engine::run calling run_warp, for one).
// Nested inside the wasm, an invoke is never the bottom of the stack and never where an unwind
// must stop, so it needs none of that; the fibers' own entry (Fibers.finishContextSwitch) still
// calls through the wrapper, which it needs. Emscripten 3.1.6's glue names exports by short keys:
// the lazy stubs (`Module["asm"]["Ba"]`) say which; if any is not found, nothing is changed.
(function () {
  if (typeof Asyncify == "undefined" || typeof asmLibraryArg == "undefined") return;
  function key(name) {
    var m = /Module\["asm"\]\["([^"]+)"\]/.exec(String(Module[name]));
    return m ? m[1] : null;
  }
  var save = key("stackSave"), restore = key("stackRestore"), threw = key("_setThrew");
  if (!save || !restore || !threw) return;
  var invokes = [];
  for (var k in asmLibraryArg) {
    var f = asmLibraryArg[k];
    if (typeof f != "function" || f.name.indexOf("invoke_") != 0) continue;
    var dyn = key("dynCall_" + f.name.slice(7));
    if (!dyn) return;
    invokes.push({import: k, dynCall: dyn, arity: f.length, returns: f.name.charAt(7) != "v"});
  }
  var raw = null;  // the exports before Asyncify's wrappers
  var instrument = Asyncify.instrumentWasmExports;
  Asyncify.instrumentWasmExports = function (exports) {
    raw = exports;
    return instrument(exports);
  };
  // Each invoke as Emscripten writes it (the same parameters, try/catch and setThrew), with the
  // exports looked up once the module is instantiated.
  invokes.forEach(function (inv) {
    var params = [];
    for (var i = 0; i < inv.arity; ++i) params.push("a" + i);
    var make = new Function("exports", "call", "save", "restore", "threw",
      "var c, s, r, t; return function (" + params.join(",") + ") {" +
      " if (!c) c = exports()[call], s = exports()[save], r = exports()[restore], t = exports()[threw];" +
      " var sp = s(); try { " + (inv.returns ? "return " : "") + "c(" + params.join(",") + "); }" +
      " catch (e) { r(sp); if (e !== e + 0) throw e; t(1, 0); } };");
    asmLibraryArg[inv.import] = make(function () { return raw; }, inv.dynCall, save, restore, threw);
  });
})();
