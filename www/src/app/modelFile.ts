// Loading a model file back into a lane (issue 10): the download format (JSON with the lane's
// training recorded, or the CLI's binary `RBMM` file), gzipped or not. The page only bounds the
// size and reads the bytes; the lane's worker parses and checks them with the core
// (`WasmLane.resume`: the command line's reader, gzip included), and a refused file leaves the
// lane as it was.

/** The largest model file the page reads: the core's `resume::MAX_MODEL_FILE_BYTES`, which
 * holds the JSON file of the largest lane the page admits (784×5000 is about 81 MB of JSON;
 * tests/live.rs checks both). */
export const MAX_MODEL_FILE_BYTES = 256 * 1024 * 1024;

/** Why a file of this size cannot be a model file the page loads (null: it may be). */
export function modelFileProblem(name: string, size: number): string | null {
  if (size === 0) return `'${name}' is empty: choose a model file downloaded from a lane (or saved by rbm train)`;
  if (size > MAX_MODEL_FILE_BYTES)
    return `'${name}' has ${(size / 1e6).toFixed(1)} MB, more than the ${MAX_MODEL_FILE_BYTES / 2 ** 20} MB a model file may have: it is not a model file of this page`;
  return null;
}

/** A file's bytes, or why they were not read (a size beyond the bound is never read). */
export async function readModelFile(
  file: Pick<File, 'name' | 'size' | 'arrayBuffer'>,
): Promise<{ ok: true; bytes: ArrayBuffer } | { ok: false; message: string }> {
  const problem = modelFileProblem(file.name, file.size);
  if (problem) return { ok: false, message: problem };
  try {
    return { ok: true, bytes: await file.arrayBuffer() };
  } catch (e) {
    return { ok: false, message: `'${file.name}' could not be read: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** What loading needs of a lane (lane.ts). */
export interface ModelTarget {
  loadModel(bytes: ArrayBuffer, name: string): boolean;
  refuseModel(name: string, message: string): void;
}

/** A model file for `lane` to continue from: bounded and read here, checked by the core in
 * the lane's worker; a refusal leaves the lane as it was, with a message. */
export async function loadModelInto(lane: ModelTarget, file: Pick<File, 'name' | 'size' | 'arrayBuffer'>): Promise<boolean> {
  const r = await readModelFile(file);
  if (!r.ok) {
    lane.refuseModel(file.name, r.message);
    return false;
  }
  if (!lane.loadModel(r.bytes, file.name)) {
    lane.refuseModel(file.name, 'the lane has no model to replace yet: load the file once it is ready');
    return false;
  }
  return true;
}
