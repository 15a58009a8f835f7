#!/usr/bin/env node
// tfjs_oracle.js: independent oracle for tinyaot's differential tests.
//
// Runs int8 (and float32-boundary) .tflite models with @tensorflow/tfjs-tflite,
// i.e. TFLite compiled to WebAssembly, in plain Node (no browser). One process
// runs a whole batch of jobs so that the WebAssembly start-up is paid once.
//
// Usage: node tfjs_oracle.js JOBS.jsonl      (or "-" to read jobs from stdin)
//
// Each job line:  {"model": "m.tflite", "inputs": ["in0.bin", ...], "outputs": ["out0.bin", ...]}
// and optionally "steps": N (default 1): N invocations of one interpreter,
// state carried, step k's inputs and outputs at k x the tensor's size.
// Files are raw little-endian row-major tensor bytes, in the model's input /
// output order. Relative paths are resolved against the current directory.
// For each job one JSON line is printed to stdout:
//   {"ok": true, "model": "..."}   or   {"ok": false, "model": "...", "error": "..."}
// Exit status: 0 if the runner worked (even if some jobs failed); 2 on a fatal
// error (package missing, WebAssembly runtime failed to load, bad arguments).
// Everything other than the per-job JSON lines goes to stderr
// (set TFJS_ORACLE_VERBOSE=1 to log which WebAssembly build is loaded).
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const readline = require('readline');

function fatal(msg) {
  process.stderr.write(`tfjs_oracle: fatal: ${msg}\n`);
  process.exit(2);
}

// stdout carries the protocol only: route stray console output to stderr.
const writeOut = process.stdout.write.bind(process.stdout);
console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

// ---------------------------------------------------------------- locate package
let TFLITE_DIR;
try {
  TFLITE_DIR = path.dirname(require.resolve('@tensorflow/tfjs-tflite/package.json', {paths: [__dirname]}));
} catch (e) {
  fatal(`@tensorflow/tfjs-tflite is not installed (run: npm ci --prefix ${path.relative(process.cwd(), __dirname) || '.'}): ${e.message}`);
}
const WASM_DIR = path.join(TFLITE_DIR, 'wasm');

// ---------------------------------------------------------------- browser shim
// The package's loader treats a window-less global as a Web Worker: it calls
// importScripts(url) and then self.tflite_web_api_ModuleFactory(...).
const VERBOSE = !!process.env.TFJS_ORACLE_VERBOSE;
let shimError = null;              // first failure inside the shim: fatal
const factoryCache = new Map();    // script name -> module promise (one instance per build)
const loadedScripts = new Set();   // scripts already evaluated (the loader imports once at
                                   // require time and again after setWasmPath)

globalThis.self = globalThis;
globalThis.self.location = {href: 'http://localhost/oracle/', origin: 'http://localhost', protocol: 'http:'};
// Force the single-threaded build (no pthread workers in Node).
delete globalThis.SharedArrayBuffer;

globalThis.importScripts = function importScripts(url) {
  try {
    const name = path.basename(String(url).replace(/[?#].*$/, ''));      // e.g. tflite_web_api_cc_simd.js
    const jsFile = path.join(WASM_DIR, name);
    const wasmFile = jsFile.replace(/\.js$/, '.wasm');
    if (!/\.js$/.test(name) || !fs.existsSync(jsFile)) throw new Error(`importScripts: no such script ${jsFile}`);
    if (!fs.existsSync(wasmFile)) throw new Error(`importScripts: no such binary ${wasmFile}`);
    if (VERBOSE) process.stderr.write(`tfjs_oracle: importScripts(${url}) -> ${jsFile}${loadedScripts.has(jsFile) ? ' (already loaded)' : ''}\n`);
    if (loadedScripts.has(jsFile)) return;
    vm.runInThisContext(fs.readFileSync(jsFile, 'utf8'), {filename: jsFile});
    for (const key of Object.keys(globalThis).filter((k) => k.endsWith('_ModuleFactory'))) {
      const factory = globalThis[key];
      if (typeof factory !== 'function' || factory.__oracleWrapped) continue;
      const wrapped = function (moduleArg) {
        const cacheKey = `${key}:${name}`;
        if (VERBOSE) process.stderr.write(`tfjs_oracle: ${key}(${name})${factoryCache.has(cacheKey) ? ' (cached)' : ''}\n`);
        if (!factoryCache.has(cacheKey)) {
          const arg = Object.assign({}, moduleArg, {
            locateFile: (p) => path.join(WASM_DIR, path.basename(p)),
            wasmBinary: fs.readFileSync(wasmFile),
            print: (s) => process.stderr.write(`${s}\n`),
            printErr: (s) => process.stderr.write(`${s}\n`),
          });
          const p = Promise.resolve(factory(arg));
          p.catch((e) => { shimError = shimError || e; });
          factoryCache.set(cacheKey, p);
        }
        return factoryCache.get(cacheKey);
      };
      wrapped.__oracleWrapped = true;
      globalThis[key] = wrapped;
    }
    loadedScripts.add(jsFile);
  } catch (e) {
    shimError = shimError || e;
    throw e;
  }
};

let tflite;
try {
  require.resolve('@tensorflow/tfjs-core', {paths: [__dirname]});
  tflite = require(require.resolve('@tensorflow/tfjs-tflite', {paths: [__dirname]}));
} catch (e) {
  fatal(`cannot load @tensorflow/tfjs-tflite / @tensorflow/tfjs-core: ${e.message}`);
}
tflite.setWasmPath('http://localhost/tfjs-tflite-wasm/');   // any URL: importScripts above reads from disk

// ---------------------------------------------------------------- one job
function bytesOf(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

function describe(t) {
  return `'${t.name}' (${t.dataType} [${t.shape}])`;
}

async function runJob(job) {
  if (job === null || typeof job !== 'object' || Array.isArray(job)) throw new Error('job is not a JSON object');
  if (typeof job.model !== 'string') throw new Error('"model" must be a string');
  const inputs = job.inputs === undefined ? [] : job.inputs;
  const outputs = job.outputs === undefined ? [] : job.outputs;
  if (!Array.isArray(inputs) || !inputs.every((s) => typeof s === 'string')) throw new Error('"inputs" must be an array of paths');
  if (!Array.isArray(outputs) || !outputs.every((s) => typeof s === 'string')) throw new Error('"outputs" must be an array of paths');
  const steps = job.steps === undefined ? 1 : job.steps;
  if (!Number.isInteger(steps) || steps < 1) throw new Error('"steps" must be a positive integer');

  const modelBytes = fs.readFileSync(job.model);
  const inputData = inputs.map((p) => fs.readFileSync(p));
  const arrayBuffer = modelBytes.buffer.slice(modelBytes.byteOffset, modelBytes.byteOffset + modelBytes.byteLength);

  const model = await tflite.loadTFLiteModel(arrayBuffer, {numThreads: 1});
  const runner = model.modelRunner;
  try {
    const modelInputs = runner.getInputs();
    const modelOutputs = runner.getOutputs();
    if (modelInputs.length !== inputs.length) {
      throw new Error(`model has ${modelInputs.length} input(s), job gives ${inputs.length}`);
    }
    if (modelOutputs.length !== outputs.length) {
      throw new Error(`model has ${modelOutputs.length} output(s), job gives ${outputs.length}`);
    }
    // Step k reads bytes [k * size, (k + 1) * size) of each input file and
    // appends its outputs likewise; the interpreter keeps its variable
    // tensors (state) from one step to the next, as TFLite does between
    // invocations.
    const results = modelOutputs.map(() => []);
    for (let step = 0; step < steps; step++) {
      for (let i = 0; i < modelInputs.length; i++) {
        const dst = bytesOf(modelInputs[i].data());
        if (inputData[i].length !== dst.length * steps) {
          throw new Error(`input ${i} ${describe(modelInputs[i])}: ${inputs[i]} has ${inputData[i].length} bytes, ${steps} step(s) of the tensor need ${dst.length * steps}`);
        }
        dst.set(inputData[i].subarray(step * dst.length, (step + 1) * dst.length));
      }
      if (!runner.infer()) throw new Error(`infer() failed at step ${step}`);
      // Copy the outputs out of the WebAssembly heap before the next step.
      runner.getOutputs().forEach((t, i) => results[i].push(Buffer.from(bytesOf(t.data()))));
    }
    for (let i = 0; i < results.length; i++) fs.writeFileSync(outputs[i], Buffer.concat(results[i]));
  } finally {
    try { runner.cleanUp(); } catch (e) { /* ignore */ }
  }
}

// ---------------------------------------------------------------- batch loop
async function main() {
  const arg = process.argv[2];
  if (arg === undefined || process.argv.length > 3) fatal('usage: node tfjs_oracle.js JOBS.jsonl|-');
  let stream;
  if (arg === '-') {
    stream = process.stdin;
  } else {
    try { fs.accessSync(arg, fs.constants.R_OK); } catch (e) { fatal(`cannot read job file ${arg}: ${e.message}`); }
    stream = fs.createReadStream(arg);
  }
  const rl = readline.createInterface({input: stream, crlfDelay: Infinity});
  let lineNo = 0;
  for await (const raw of rl) {
    lineNo++;
    const line = raw.trim();
    if (line === '') continue;
    let job = null;
    let result;
    try {
      job = JSON.parse(line);
      await runJob(job);
      result = {ok: true, model: job.model};
    } catch (e) {
      const model = job && typeof job === 'object' && 'model' in job ? job.model : null;
      const msg = e && e.message ? e.message : String(e);
      result = {ok: false, model, error: job === null ? `line ${lineNo}: bad JSON: ${msg}` : msg};
    }
    writeOut(JSON.stringify(result) + '\n');
    if (shimError) fatal(`WebAssembly runtime failed to load: ${shimError.message || shimError}`);
  }
}

main().then(
  () => { process.exitCode = 0; },
  (e) => fatal(e && e.stack ? e.stack : String(e)),
);
