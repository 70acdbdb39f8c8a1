import type { VideoRequest } from '../../core/media/video-generator.ts';

/** The effects of vidu_template_agent (`custom_variables.template`, docs/wire.md §1.6). */
export type EffectTemplateName = 'french_kiss' | 'bodyshake' | 'sexy_me';

/**
 * One effect: what the video model is asked to do with the user's photo, and the fixed video
 * settings it is made with. No size: the video follows the photo's aspect ratio (the video
 * engines' default), so the people in it are not cropped or stretched.
 */
export interface EffectTemplate {
  readonly prompt: string;
  readonly durationSeconds: VideoRequest['durationSeconds'];
  readonly fps: VideoRequest['fps'];
  readonly quality: VideoRequest['quality'];
}

/**
 * The prompts say what must stay as it is (faces, clothes, background) because an image-to-video
 * model otherwise drifts from the photo; the user's own words are appended after them.
 */
export const effectTemplates: Readonly<Record<EffectTemplateName, EffectTemplate>> = {
  french_kiss: {
    prompt:
      'The two people in the photo turn toward each other, lean in slowly and share a tender, romantic kiss. ' +
      'Smooth, natural motion; their faces, hair and clothes stay exactly as in the photo; soft warm light; steady camera.',
    durationSeconds: 5,
    fps: 30,
    quality: 'speed',
  },
  bodyshake: {
    prompt:
      'The person in the photo dances to an upbeat rhythm, shaking shoulders, hips and arms in time with the beat, ' +
      'with a joyful expression. Fluid, energetic motion; face, clothes and background stay as in the photo; steady camera.',
    durationSeconds: 5,
    fps: 30,
    quality: 'speed',
  },
  sexy_me: {
    prompt:
      'The person in the photo strikes a confident, glamorous pose as in a fashion shoot: a slow turn of the shoulders, ' +
      'a hand sweeping the hair back and a self-assured smile to the camera. Tasteful and elegant; face, outfit and ' +
      'background stay as in the photo; flattering studio light; smooth motion.',
    durationSeconds: 5,
    fps: 30,
    quality: 'speed',
  },
};

export function isEffectTemplateName(name: unknown): name is EffectTemplateName {
  return typeof name === 'string' && Object.hasOwn(effectTemplates, name);
}
