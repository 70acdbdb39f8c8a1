import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { collectFile, multipartContentType, multipartRouteOptions, readMultipartForm } from '../../http/multipart.ts';
import { responses } from '../shared/common.schema.ts';
import { checkAudioTranscription, maxBase64FieldBytes } from './audio.checks.ts';
import { AudioTranscriptionFields, AudioTranscriptionForm, AudioTranscriptionResponse, maxAudioBytes } from './audio.schema.ts';

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
    },
    async (request) => {
      const form = await readMultipartForm(request, AudioTranscriptionFields, {
        fileField: 'file',
        maxFileBytes: maxAudioBytes,
        maxFieldBytes: maxBase64FieldBytes(),
        receiveFile: collectFile,
      });
      checkAudioTranscription(form.fields, form.file);
      const entry = deps.models.resolve(form.fields.model, 'transcribe');
      throw engineNotAvailable(form.fields.model, entry, 'transcribe');
    },
  );
}
