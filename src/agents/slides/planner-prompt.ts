import type { ChatMessage } from '../../core/chat/chat-types.ts';
import { planLimits, slideLayouts, themeNames } from './slide-plan.ts';

/** One earlier turn of a conversation: what the user asked and the plan (JSON) that answered it. */
export interface PlannerTurn {
  readonly instruction: string;
  readonly plan: string;
}

/** Earlier turns sent with a follow-up; older ones are dropped (the latest plan carries their result). */
const maxHistoryTurns = 6;

const systemPrompt = `You design presentation slides and posters. Answer with exactly one JSON object and nothing else: no Markdown, no comments.

For slides (the default), answer:
{"kind":"deck","title":"...","theme":{"name":"${themeNames.join('|')}","accent":"#rrggbb (optional)"},
 "slides":[{"layout":"...","title":"...", ...}]}
Layouts (${slideLayouts.join(', ')}):
- {"layout":"title","title":"...","subtitle":"..."}: the opening slide, and a closing slide if one helps.
- {"layout":"section","title":"...","subtitle":"..."}: a divider between parts.
- {"layout":"bullets","title":"...","text":"one optional sentence","bullets":["...","..."]}
- {"layout":"two_column","title":"...","left":{"heading":"...","bullets":["..."]},"right":{"heading":"...","bullets":["..."]}}
- {"layout":"quote","title":"optional","text":"the quotation","attribution":"who said it"}
Every slide may have "notes" (speaker notes). Keep bullets short (under 15 words), at most 6 per slide and 4 per column; use 5 to 12 slides unless the user asks for another number (at most ${planLimits.slides}).

For a poster (only when the user asks for a poster), answer:
{"kind":"poster","title":"...","subtitle":"...","theme":{"name":"..."},"sections":[{"heading":"...","text":"...","bullets":["..."]}],"footer":"..."}
with 3 to 6 sections.

Write all text in the language of the user's request. When the conversation already has a plan, the user's new message asks for changes: answer with the complete revised JSON object, keeping what the user did not ask to change.`;

/** The planner's messages: the format, the earlier turns (user instruction, plan JSON), then the new instruction. */
export function plannerMessages(history: readonly PlannerTurn[], instruction: string): ChatMessage[] {
  const turns = history.slice(-maxHistoryTurns).flatMap((turn): ChatMessage[] => [
    { role: 'user', content: turn.instruction },
    { role: 'assistant', content: turn.plan },
  ]);
  const request =
    history.length === 0
      ? instruction
      : `Revise the current plan (your last answer) as follows, and answer with the complete revised JSON object:\n${instruction}`;
  return [{ role: 'system', content: systemPrompt }, ...turns, { role: 'user', content: request }];
}

/** The message that asks the model to fix an answer that could not be read as a plan. */
export function repairMessage(problem: string, cutOff: boolean): ChatMessage {
  const reason = cutOff ? `${problem}; the answer was cut off at the output limit, so make it shorter` : problem;
  return { role: 'user', content: `Your answer could not be used: ${reason}. Answer again with only the corrected JSON object.` };
}
