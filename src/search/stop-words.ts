/**
 * Words dropped from prose queries: English function words, and words that name the *kind* of
 * thing wanted ("function", "code") rather than its content. Verbs that start identifiers (get,
 * set, find, show, load...) are kept: "get user" must still meet `getUser`. Never applied to identifiers, and
 * ignored entirely when a query is made only of them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could did didn do does doesn doing don down during each few for from further had has have having he her here ' +
    'hers herself him himself his how i if in into is isn it its itself just let me more most my myself no nor not now of off on ' +
    'once only or other ought our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where which while who ' +
    'whom why will with would you your yours yourself yourselves ' +
    // query boilerplate
    'please me looking want need tell explain where whereabouts code function functions method methods ' +
    'file files implement implemented implementation implementations logic located defined definition happen happens thing things'
  ).split(/\s+/),
);
