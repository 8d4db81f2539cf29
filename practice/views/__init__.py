"""Views of the practice site, split by area: auth, expenses, api, lab, and the risky flows
(shop, account and security, mail, docs)."""
