import { pageTitles, type SlidePlan } from './slide-plan.ts';

/**
 * The agent's answer text, in the lines it is streamed as: what was made and the page titles, in
 * Chinese when the user wrote Chinese. The pages themselves are fetched with
 * POST /v1/agents/conversation.
 */
export function planSummary(plan: SlidePlan, instruction: string, revised: boolean): string[] {
  const titles = pageTitles(plan);
  if (/[\u3400-\u9fff]/.test(instruction)) {
    const verb = revised ? '已更新' : '已生成';
    if (plan.kind === 'poster') return [`${verb}海报《${plan.title}》。`];
    return [`${verb}幻灯片《${plan.title}》，共 ${titles.length} 页：\n`, ...titles.map((title, index) => `${index + 1}. ${title}\n`)];
  }
  const verb = revised ? 'Updated' : 'Created';
  if (plan.kind === 'poster') return [`${verb} the poster "${plan.title}".`];
  const count = `${titles.length} slide${titles.length === 1 ? '' : 's'}`;
  return [`${verb} the slides "${plan.title}", ${count}:\n`, ...titles.map((title, index) => `${index + 1}. ${title}\n`)];
}
