"""Every word the server says beside the log's narrators, in English and French:

- `refusals`: a refusal's or an error's words, from its reason key and params;
- `conditions`: the console's events (conditions, an answered dispute, a fight continued);
- `seals`: a Command Seal spent (ranks-d100, RK-39);
- `webhooks`: the texts a webhook posts; `resolver`: the 1v1 resolver's report;
- `war`: the War's events;
- `french`: the grammar they share (elision, agreement).
"""
