/** The conversation the real-engine tests and the fixture recorder send: a system turn, a question, a weather tool. */
export const tinyGlmAlias = 'tiny-glm';

export const weatherMessages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello there, what is the weather like today?' },
];

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 } }, required: ['city'], additionalProperties: false },
  },
};
