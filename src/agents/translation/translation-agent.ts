import type { ChatModel } from '../../core/chat/chat-model.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { asApiError } from '../../core/errors/engine-failure.ts';
import type { Agent, AgentEvent, AgentInput, AgentServices } from '../agent.ts';
import { agentChatModel as configuredChatModel } from '../configured-model.ts';
import { loadGlossary, matchingTerms } from './glossary.ts';
import { runPipeline } from './pipeline-runner.ts';
import { translationPipelines } from './translation-pipelines.ts';
import { readTranslationSettings, textToTranslate } from './translation-settings.ts';

const configKey = 'agents.general_translation.model';

/**
 * general_translation: translates the text of the user messages with the strategy the request
 * names, each strategy a fixed pipeline of calls to the chat model the config names
 * (`agents.general_translation.model`), with the request's glossary enforced in every prompt
 * and checked in the output.
 */
export function createTranslationAgent(services: AgentServices): Agent {
  return { run: (input) => translate(services, input) };
}

async function* translate(services: AgentServices, input: AgentInput): AsyncGenerator<AgentEvent> {
  const settings = readTranslationSettings(input.variables);
  const text = textToTranslate(input.messages);
  const model = configuredChatModel(services.config, 'general_translation');
  const chat = agentChatModel(services, model);
  const glossary = settings.glossaryId === undefined ? [] : await loadGlossary(services.files, input.ownerKeyId, settings.glossaryId);
  const task = { text, settings, terms: matchingTerms(glossary, text) };
  yield* runPipeline({ chat, model, signal: input.signal }, translationPipelines[settings.strategy], task);
}

/** The configured model's engine; a failure names the config key, since the client did not pick the model. */
function agentChatModel(services: AgentServices, model: string): ChatModel {
  try {
    return services.backends.capability(model, 'chat');
  } catch (error) {
    const platformError = asApiError(error);
    if (platformError === undefined) throw error;
    throw new ApiError(
      platformError.code === '1211' ? '1221' : platformError.code,
      `The agent 'general_translation' cannot call model '${model}' (${configKey}): ${platformError.message}`,
    );
  }
}
