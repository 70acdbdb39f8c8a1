import type { Backend } from '../backends/backend.ts';
import type { DeploymentRouter, RoutedDeployment } from './deployment-router.ts';
import { isFailoverEligible } from './failover-eligible.ts';
import { recordServedBy } from './served-by.ts';
import { OpenedLater } from '../streams/opened-later.ts';

/** A model's router, and the name it stands for when it serves another model's call (a fallback). */
export interface RouterTurn {
  readonly router: DeploymentRouter;
  readonly fallbackModel?: string;
}

interface Signalled {
  readonly signal: AbortSignal;
}

/**
 * The Backend of a routed model: each capability the deployments offer, every call routed by
 * the model's router and, when every deployment it tried failed in a way another engine may take
 * over, by the routers of the fallback models in order (`turns`: the model's own first). A
 * fallback model serves under the requested model's name; the route names it in a header.
 */
export function routedBackend(turns: () => readonly RouterTurn[]): Backend {
  const own = turns()[0]?.router;
  if (own === undefined) return {};
  const offered = (has: (backend: Backend) => boolean) => own.deployments.some((deployment) => has(deployment.backend));

  /** One routed method: `method` picks the deployment backend's method, undefined where it lacks it. */
  function call<Request extends Signalled, Result>(
    method: (backend: Backend) => ((request: Request) => Promise<Result>) | undefined,
    usable: (turn: RouterTurn) => (deployment: RoutedDeployment) => boolean = () => (deployment) => method(deployment.backend) !== undefined,
  ): (request: Request) => Promise<Result> {
    return async (request) => {
      let lastError: unknown;
      for (const turn of usableTurns(turns(), usable)) {
        try {
          return await turn.router.call(
            request.signal,
            usable(turn),
            (deployment) => (method(deployment.backend) as (request: Request) => Promise<Result>)(request),
            (deployment) => recordServedBy(request.signal, served(deployment, turn)),
          );
        } catch (error) {
          if (request.signal.aborted || !isFailoverEligible(error)) throw error;
          lastError = error;
        }
      }
      throw lastError;
    };
  }

  /** One routed stream: committed once its first part is passed on; before that, the next deployment or fallback takes it. */
  function stream<Request extends Signalled, Part>(method: (backend: Backend) => ((request: Request) => AsyncIterable<Part>) | undefined) {
    const usable = () => (deployment: RoutedDeployment) => method(deployment.backend) !== undefined;
    const open = async (request: Request): Promise<AsyncIterator<Part>> => {
      let lastError: unknown;
      for (const turn of usableTurns(turns(), usable)) {
        try {
          // Committed once this resolves (its first part is in): later failures are the stream's own.
          return await turn.router.openStream(
            request.signal,
            usable(),
            (deployment) => (method(deployment.backend) as (request: Request) => AsyncIterable<Part>)(request),
            (deployment) => recordServedBy(request.signal, served(deployment, turn)),
          );
        } catch (error) {
          if (request.signal.aborted || !isFailoverEligible(error)) throw error;
          lastError = error;
        }
      }
      throw lastError;
    };
    return (request: Request): AsyncIterableIterator<Part> => new OpenedLater(() => open(request));
  }

  const backend: { -readonly [Key in keyof Backend]: Backend[Key] } = {};
  if (offered((engine) => engine.chat !== undefined)) {
    backend.chat = {
      generate: call((engine) => engine.chat?.generate.bind(engine.chat)),
      stream: stream((engine) => engine.chat?.stream.bind(engine.chat)),
    };
  }
  if (offered((engine) => engine.tokenizer !== undefined)) {
    // Token counts differ between engine families: only deployments of the family that counts first answer.
    const family = (turn: RouterTurn) => turn.router.deployments.find((deployment) => deployment.backend.tokenizer !== undefined)?.kind;
    backend.tokenizer = {
      countPromptTokens: call(
        (engine) => engine.tokenizer?.countPromptTokens.bind(engine.tokenizer),
        (turn) => (deployment) => deployment.backend.tokenizer !== undefined && deployment.kind === family(turn),
      ),
    };
  }
  if (offered((engine) => engine.search !== undefined)) backend.search = { search: call((engine) => engine.search?.search.bind(engine.search)) };
  if (offered((engine) => engine.image !== undefined)) backend.image = { generate: call((engine) => engine.image?.generate.bind(engine.image)) };
  if (offered((engine) => engine.video !== undefined)) backend.video = { generate: call((engine) => engine.video?.generate.bind(engine.video)) };
  if (offered((engine) => engine.layout !== undefined)) backend.layout = { parse: call((engine) => engine.layout?.parse.bind(engine.layout)) };
  if (offered((engine) => engine.transcribe !== undefined)) {
    backend.transcribe = {
      transcribe: call((engine) => engine.transcribe?.transcribe.bind(engine.transcribe)),
      ...(offered((engine) => engine.transcribe?.stream !== undefined)
        ? { stream: stream((engine) => engine.transcribe?.stream?.bind(engine.transcribe)) }
        : {}),
    };
  }
  return backend;
}

function served(deployment: RoutedDeployment, turn: RouterTurn) {
  return turn.fallbackModel === undefined ? { deployment: deployment.name } : { deployment: deployment.name, fallbackModel: turn.fallbackModel };
}

/** The turns whose model has a deployment for the call (a fallback model without the capability is passed over). */
function usableTurns(turns: readonly RouterTurn[], usable: (turn: RouterTurn) => (deployment: RoutedDeployment) => boolean): RouterTurn[] {
  return turns.filter((turn) => turn.router.deployments.some(usable(turn)));
}
