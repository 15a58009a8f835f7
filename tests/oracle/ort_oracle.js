#!/usr/bin/env node
// ort_oracle.js: independent oracle for tinyaot's ONNX tests.
//
// Runs .onnx models with onnxruntime-web (onnxruntime compiled to WebAssembly,
// CPU kernels, one thread) in plain Node, offline. One process runs a whole
// batch of jobs so that the WebAssembly start-up is paid once. Same job-file
// interface as tfjs_oracle.js.
//
// Usage: node ort_oracle.js JOBS.jsonl      (or "-" to read jobs from stdin)
//
// Each job line:
//   {"model": "m.onnx", "inputs": ["in0.bin", ...], "outputs": ["out0.bin", ...]}
// with two optional fields:
//   "graph_optimization": "all" (default, as onnxruntime's own default), "extended",
//                         "basic" or "disabled": see README.md for what each changes;
//   "input_shapes": [[1, 3, 8, 8], ...]  only needed where the model leaves a
//                         dimension symbolic;
//   "report_kernels": true  adds to the result line the kernels onnxruntime ran,
//                         in order, after its graph rewrites (from its profiler).
// Files are raw little-endian row-major tensor bytes, in the model's input /
// output order. Relative paths are resolved against the current directory.
// For each job one JSON line is printed to stdout:
//   {"ok": true, "model": "...", "outputs": [{"name": "y", "type": "int8", "dims": [1, 10]}],
//    "kernels": [{"op": "QLinearConv", "inputs": ["uint8[1,5,5,3]", ...], "outputs": [...]}]}
//   {"ok": false, "model": "...", "error": "..."}
// Exit status: 0 if the runner worked (even if some jobs failed); 2 on a fatal
// error (package missing, WebAssembly runtime failed to load, bad arguments).
// Everything other than the per-job JSON lines goes to stderr (set
// ORT_ORACLE_LOG_LEVEL=verbose to see the graph rewrites and the kernel of each node).
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

function fatal(msg) {
  process.stderr.write(`ort_oracle: fatal: ${msg}\n`);
  process.exit(2);
}

// stdout carries the protocol only. Stray console output goes to stderr; so does
// what the WebAssembly module prints, which in Node it writes with
// fs.writeSync(1, ...) (onnxruntime's profiler trace, for one): fd 1 writes other
// than the protocol's own are sent to fd 2, or to `captured` while it is set.
const writeSyncToFd = fs.writeSync;
let captured = null;
fs.writeSync = function writeSyncRedirected(fd, data, ...rest) {
  if (fd !== 1) return writeSyncToFd.call(fs, fd, data, ...rest);
  if (captured === null) return writeSyncToFd.call(fs, 2, data, ...rest);
  captured.push(String(data));
  return typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
};

function writeOut(text) {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length;) {
    try {
      done += writeSyncToFd.call(fs, 1, bytes, done, bytes.length - done);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;  // a non-blocking pipe that is full: try again
    }
  }
}

console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

let ort;
try {
  // Resolves to the package's Node build, which reads its .wasm from its own dist/ folder.
  ort = require(require.resolve('onnxruntime-web', {paths: [__dirname]}));
} catch (e) {
  fatal(`onnxruntime-web is not installed (run: npm ci --prefix ${path.relative(process.cwd(), __dirname) || '.'}): ${e.message}`);
}
// One thread: results must not depend on how work is split, and Node gives no
// cross-origin isolation to the threaded build anyway.
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
// ORT_ORACLE_LOG_LEVEL=verbose shows on stderr which transformers rewrote the graph
// and which kernel runs each node.
const LOG_LEVELS = ['verbose', 'info', 'warning', 'error', 'fatal'];
const logLevel = process.env.ORT_ORACLE_LOG_LEVEL || 'error';
if (!LOG_LEVELS.includes(logLevel)) fatal(`ORT_ORACLE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
ort.env.logLevel = logLevel;

const OPTIMIZATION_LEVELS = ['disabled', 'basic', 'extended', 'all'];

// Element type (as onnxruntime-web names it) -> typed array holding its bytes.
const TYPED_ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
};

function bytesOf(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

// ---------------------------------------------------------------- sessions
// Consecutive jobs on the same model (one vector after another) reuse its session.
let cached = null;  // {key, session}

async function sessionFor(modelPath, level, profile) {
  const stat = fs.statSync(modelPath);
  const key = `${path.resolve(modelPath)}:${stat.mtimeMs}:${stat.size}:${level}:${profile}`;
  if (cached && cached.key === key) return cached.session;
  if (cached) {
    await cached.session.release();
    cached = null;
  }
  const session = await ort.InferenceSession.create(fs.readFileSync(modelPath), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: level,
    executionMode: 'sequential',
    logSeverityLevel: LOG_LEVELS.indexOf(logLevel),
    logVerbosityLevel: 0,
    enableProfiling: profile,
  });
  cached = {key, session};
  return session;
}

// The profiler prints its trace (a JSON array of events) to fd 1 when profiling
// ends; each node event names the kernel's op type and tensor types.
function typeShapes(list) {
  return (list || []).map((entry) => Object.entries(entry).map(([type, dims]) => `${type}[${dims.join(',')}]`)[0]);
}

function kernelsRun(session) {
  captured = [];
  let printed;
  try {
    session.endProfiling();
  } finally {
    printed = captured.join('');
    captured = null;
  }
  const events = JSON.parse(printed);
  return events.filter((e) => e.cat === 'Node' && e.args && e.args.op_name)
      .map((e) => ({op: e.args.op_name, inputs: typeShapes(e.args.input_type_shape), outputs: typeShapes(e.args.output_type_shape)}));
}

// ---------------------------------------------------------------- one job
function describe(meta, dims) {
  return `'${meta.name}' (${meta.type} [${dims.join(',')}])`;
}

function inputDims(meta, index, job) {
  const given = job.input_shapes === undefined ? undefined : job.input_shapes[index];
  if (given !== undefined) {
    if (!Array.isArray(given) || !given.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new Error(`input_shapes[${index}] must be an array of non-negative integers`);
    }
    if (given.length !== meta.shape.length) {
      throw new Error(`input ${index} '${meta.name}': input_shapes gives rank ${given.length}, model has rank ${meta.shape.length} [${meta.shape.join(',')}]`);
    }
    meta.shape.forEach((d, axis) => {
      if (typeof d === 'number' && d >= 0 && d !== given[axis]) {
        throw new Error(`input ${index} '${meta.name}': input_shapes gives ${given[axis]} for axis ${axis}, model fixes it to ${d}`);
      }
    });
    return given;
  }
  const symbolic = meta.shape.findIndex((d) => typeof d !== 'number' || d < 0);
  if (symbolic >= 0) {
    throw new Error(`input ${index} '${meta.name}' has symbolic dimension '${meta.shape[symbolic]}' at axis ${symbolic} [${meta.shape.join(',')}]: give "input_shapes"`);
  }
  return meta.shape;
}

function checkJob(job) {
  if (job === null || typeof job !== 'object' || Array.isArray(job)) throw new Error('job is not a JSON object');
  if (typeof job.model !== 'string') throw new Error('"model" must be a string');
  for (const field of ['inputs', 'outputs']) {
    const list = job[field] === undefined ? [] : job[field];
    if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) throw new Error(`"${field}" must be an array of paths`);
  }
  if (job.input_shapes !== undefined && !Array.isArray(job.input_shapes)) throw new Error('"input_shapes" must be an array of shapes');
  const level = job.graph_optimization === undefined ? 'all' : job.graph_optimization;
  if (job.report_kernels !== undefined && typeof job.report_kernels !== 'boolean') throw new Error('"report_kernels" must be true or false');
  if (!OPTIMIZATION_LEVELS.includes(level)) {
    throw new Error(`"graph_optimization" must be one of ${OPTIMIZATION_LEVELS.join(', ')}, not ${JSON.stringify(level)}`);
  }
  return level;
}

async function runJob(job) {
  const level = checkJob(job);
  const inputs = job.inputs || [];
  const outputs = job.outputs || [];
  if (!fs.existsSync(job.model)) throw new Error(`no such model file ${job.model}`);
  const inputData = inputs.map((p) => fs.readFileSync(p));

  const profile = job.report_kernels === true;
  const session = await sessionFor(job.model, level, profile);
  const inputMeta = session.inputMetadata;
  if (inputMeta.length !== inputs.length) {
    throw new Error(`model has ${inputMeta.length} input(s) [${session.inputNames.join(', ')}], job gives ${inputs.length}`);
  }
  if (session.outputNames.length !== outputs.length) {
    throw new Error(`model has ${session.outputNames.length} output(s) [${session.outputNames.join(', ')}], job gives ${outputs.length}`);
  }
  const feeds = {};
  inputMeta.forEach((meta, i) => {
    if (!meta.isTensor) throw new Error(`input ${i} '${meta.name}' is not a tensor`);
    const Typed = TYPED_ARRAYS[meta.type];
    if (Typed === undefined) throw new Error(`input ${i} '${meta.name}' has element type ${meta.type}, which the oracle does not feed`);
    const dims = inputDims(meta, i, job);
    const count = dims.reduce((a, b) => a * b, 1);
    const needed = count * Typed.BYTES_PER_ELEMENT;
    if (inputData[i].length !== needed) {
      throw new Error(`input ${i} ${describe(meta, dims)}: ${inputs[i]} has ${inputData[i].length} bytes, tensor needs ${needed}`);
    }
    // Copy into a fresh, aligned buffer: a Buffer's offset need not be a multiple of the element size.
    const data = new Typed(count);
    bytesOf(data).set(inputData[i]);
    feeds[meta.name] = new ort.Tensor(meta.type, data, dims);
  });

  const results = await session.run(feeds);
  const described = session.outputNames.map((name) => {
    const t = results[name];
    if (TYPED_ARRAYS[t.type] === undefined) throw new Error(`output '${name}' has element type ${t.type}, which the oracle does not write`);
    return {name, type: t.type, dims: Array.from(t.dims)};
  });
  session.outputNames.forEach((name, i) => fs.writeFileSync(outputs[i], bytesOf(results[name].data)));
  const report = {outputs: described};
  if (profile) {
    report.kernels = kernelsRun(session);
    cached = null;  // a profiled session ends its trace once: do not reuse it
    await session.release();
  }
  return report;
}

// ---------------------------------------------------------------- start-up
// A one-node float model (Identity of a [1] tensor, opset 13) run once before the
// jobs, so that a WebAssembly runtime that cannot load is a fatal error and not a
// failure of every job.
const PROBE_MODEL = 'CAc6OwoQCgF4EgF5IghJZGVudGl0eRIFcHJvYmVaDwoBeBIKCggIARIECgIIAWIPCgF5EgoKCAgBEgQKAggBQgQKABAN';

async function probeRuntime() {
  try {
    const session = await ort.InferenceSession.create(Buffer.from(PROBE_MODEL, 'base64'), {executionProviders: ['wasm']});
    const out = await session.run({x: new ort.Tensor('float32', new Float32Array([1.5]), [1])});
    await session.release();
    if (out.y.data[0] !== 1.5) throw new Error(`probe model returned ${out.y.data[0]}, expected 1.5`);
  } catch (e) {
    fatal(`WebAssembly runtime failed to load: ${e && e.message ? e.message : e}`);
  }
}

// ---------------------------------------------------------------- batch loop
async function main() {
  const arg = process.argv[2];
  if (arg === undefined || process.argv.length > 3) fatal('usage: node ort_oracle.js JOBS.jsonl|-');
  let stream;
  if (arg === '-') {
    stream = process.stdin;
  } else {
    try { fs.accessSync(arg, fs.constants.R_OK); } catch (e) { fatal(`cannot read job file ${arg}: ${e.message}`); }
    stream = fs.createReadStream(arg);
  }
  await probeRuntime();
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
      result = Object.assign({ok: true, model: job.model}, await runJob(job));
    } catch (e) {
      const model = job && typeof job === 'object' && 'model' in job ? job.model : null;
      const msg = e && e.message ? e.message : String(e);
      result = {ok: false, model, error: job === null ? `line ${lineNo}: bad JSON: ${msg}` : msg};
    }
    writeOut(JSON.stringify(result) + '\n');
  }
  if (cached) await cached.session.release();
}

main().then(
  () => { process.exitCode = 0; },
  (e) => fatal(e && e.stack ? e.stack : String(e)),
);
