import { randomUUID } from 'node:crypto';
import type { TranscriptionRequest } from '../../core/media/transcriber.ts';
import { unitsBound } from '../../core/billing/usage-bound.ts';
import { admitLateCall } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { setServedByHeaders, withServedByHeaders } from '../../http/served-by-headers.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { collectFile, multipartContentType, multipartRouteOptions, readMultipartForm } from '../../http/multipart.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { responses } from '../shared/common.schema.ts';
import { readAudioInput } from './audio-input.ts';
import { checkAudioTranscription, maxBase64FieldBytes } from './audio.checks.ts';
import { AudioTranscriptionFields, AudioTranscriptionForm, AudioTranscriptionResponse, AudioTranscriptionStreamEvent, maxAudioBytes } from './audio.schema.ts';
import { relayTranscriptionStream, wholeTextAsDelta } from './transcription-stream-relay.ts';

export function registerAudioRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '/audio/transcriptions',
    {
      ...multipartRouteOptions,
      schema: {
        operationId: 'createAudioTranscription',
        tags: ['audio'],
        summary: 'Transcribes a short wav/mp3 file, synchronously or streamed (text/event-stream of AudioTranscriptionStreamEvent).',
        consumes: [multipartContentType],
        body: AudioTranscriptionForm,
        response: responses(AudioTranscriptionResponse),
      },
      // Multipart: the model is a form field the handler reads, and admits (admitLateCall).
      config: { admission: { model: 'late' }, usage: 'audio.transcriptions', streamEvent: AudioTranscriptionStreamEvent },
    },
    async (request, reply) => {
      const form = await readMultipartForm(request, reply, AudioTranscriptionFields, {
        fileField: 'file',
        maxFileBytes: maxAudioBytes,
        maxFieldBytes: maxBase64FieldBytes(),
        receiveFile: collectFile,
      });
      const fields = form.fields;
      checkAudioTranscription(fields, form.file);
      // Key limits: the model is known only now that the form is read; a key with credit reserves for
      // the audio's length (read then, after the model is found allowed).
      const readAudio = await readAudioInput(fields, form.file);
      await admitLateCall(request, fields.model, () => unitsBound({ audioSeconds: readAudio().durationSeconds }));
      // The engine first: a model nothing serves is refused (1211 / 1221) whatever the audio.
      const transcriber = deps.backends.capability(fields.model, 'transcribe');
      const audio = readAudio();
      const transcription: TranscriptionRequest = {
        model: fields.model,
        audio: { bytes: audio.bytes, format: audio.format },
        ...(fields.prompt === undefined ? {} : { prompt: fields.prompt }),
        hotwords: fields.hotwords ?? [],
        signal: abortOnDisconnect(reply),
      };
      const header = { id: randomUUID(), created: Math.floor(Date.now() / 1000), model: fields.model };
      // Audio is counted by its length, read from the bytes (audio-input.ts), once the transcript is complete.
      const recordUsage = () => request.recordUsage({ model: fields.model, units: { audioSeconds: audio.durationSeconds } });
      if (fields.stream === true) {
        const deltas = transcriber.stream?.(transcription) ?? wholeTextAsDelta(transcriber.transcribe(transcription));
        if (await relayTranscriptionStream(withServedByHeaders(deltas, reply, transcription.signal), header, new SseWriter(request, reply))) recordUsage();
        return reply;
      }
      const { text } = await transcriber.transcribe(transcription);
      setServedByHeaders(reply, transcription.signal);
      recordUsage();
      return { id: header.id, created: header.created, request_id: request.requestId, model: fields.model, text };
    },
  );
}
