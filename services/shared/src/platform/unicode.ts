const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string JavaScript can hold but UTF-8 cannot: encoding would silently replace the unpaired half. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
