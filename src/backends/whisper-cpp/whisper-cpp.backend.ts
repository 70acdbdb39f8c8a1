import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { BackendFactory } from '../../core/backends/backend.ts';
import { announcerOf } from '../../core/backends/announcer.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { WhisperCppSettings } from './whisper-cpp-settings.ts';
import { WhisperTranscriber } from './whisper-transcriber.ts';

/** 30 seconds of audio on a few CPU cores takes whisper base some seconds; a stuck call must still end. */
const defaultTranscriptionTimeoutMs = 120_000;

/** Speech to text in this process, through whisper.cpp (the @fugood/whisper.node binding, CPU build). */
export const createWhisperCppBackend: BackendFactory<WhisperCppSettings> = ({ modelName, entry, configDir, resources }) => {
  const hubFile = entry.modelPath.startsWith('hf://') ? entry.modelPath : undefined;
  const files = 'modelFiles' in resources ? resources.modelFiles : undefined;
  if (hubFile !== undefined && files === undefined) {
    throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' names ${hubFile}, which only a server with its models directory fetches.`);
  }
  const localPath = (): string => {
    if (hubFile !== undefined && files !== undefined) return files.localPath(hubFile);
    return isAbsolute(entry.modelPath) ? entry.modelPath : resolve(configDir, entry.modelPath);
  };
  const transcriber = new WhisperTranscriber({
    modelName,
    modelPath: localPath(),
    notReadyReason: () => (hubFile !== undefined ? files?.notReadyReason(hubFile) : undefined),
    language: entry.language,
    // Like llama.cpp, whisper.cpp's matrix work is memory-bound: half the cores, at least one.
    threads: entry.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    timeoutMs: entry.timeoutMs ?? defaultTranscriptionTimeoutMs,
    announce: announcerOf(resources),
  });
  return { transcribe: transcriber, close: () => transcriber.close() };
};
