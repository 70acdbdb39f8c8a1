/** The request_id (6-64) and user_id (6-128) length rules, as rejected cases on top of a valid body. */
export function sharedIdCases(valid: Record<string, unknown>): { name: string; body: Record<string, unknown>; code: string; field: string }[] {
  return [
    { name: 'request_id too short', body: { ...valid, request_id: 'abc' }, code: '1214', field: 'request_id' },
    { name: 'request_id too long', body: { ...valid, request_id: 'x'.repeat(65) }, code: '1214', field: 'request_id' },
    { name: 'user_id too short', body: { ...valid, user_id: 'u1' }, code: '1214', field: 'user_id' },
    { name: 'user_id too long', body: { ...valid, user_id: 'u'.repeat(129) }, code: '1214', field: 'user_id' },
  ];
}
