// A user's phone number, in international format: a +, a country code that does not start with 0, then digits only
// (no spaces, dashes or parentheses), 19 digits at most. The seed file refuses any other (its schema carries the
// pattern) and the API documents the same one on the User it answers.

/** The rule as a JSON-schema pattern, for the schemas that check or document it. */
export const PHONE_NUMBER_PATTERN = '^(\\+[1-9])[0-9]{0,18}$'

const PHONE_NUMBER = new RegExp(PHONE_NUMBER_PATTERN)

/** Whether `v` is a phone number in international format. */
export const isPhoneNumber = (v: string): boolean => PHONE_NUMBER.test(v)
