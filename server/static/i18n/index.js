// UI strings in English and French; the choice is remembered in localStorage.
import { CHART_STRINGS } from "./charts.js";
import { CONSOLE_STRINGS } from "./console.js";
import { SETUP_STRINGS } from "./setup.js";
import { SHEET_STRINGS } from "./sheet.js";

const STRINGS = {
  en: {
    docs_title: "Fracas API", docs_intro: "Every HTTP route, generated from the server's types. The documents themselves:",
    docs_ws: "the websocket (AsyncAPI 3)", docs_schema: "every command, event and websocket message (JSON Schema)",
    docs_ops: "Operations", docs_schemas: "Schemas", docs_params: "Parameters", docs_body: "Request body",
    docs_answers: "Answers", docs_required: "required", docs_optional: "optional", docs_auth_required: "Bearer token required",
    docs_auth_optional: "Bearer token optional", docs_auth_none: "no token", docs_in: "in {where}",
    docs_failed: "The API description could not be loaded.",
    war: "War", war_gm: "War GM", war_start_title: "Start a War", war_start: "Start the War", war_name: "War name",
    war_default_name: "The Fifth War", war_start_hint: "A ranks-d100 campaign: characters keep their HP, mana and Luck between encounters, Day after Day.",
    your_wars: "Your Wars", war_not_found: "No such War, or no access.", war_read_only: "Read only: this browser does not hold the War's GM token.",
    day: "Day", day_n: "Day {n}", characters: "Characters", characters_n: "Characters: {n}", kind: "Kind", hp: "HP", mana: "Mana", luck_left: "Luck left",
    half_ranks: "Half-ranks used today", status: "Status", sidelined: "sidelined today", dead: "dead", ready: "ready",
    kind_master: "Master", kind_servant: "Servant", servant_of: "Servant of {name}", no_characters: "No character enrolled yet.",
    day_recover: "{name} +{hp} HP, +{mana} mana", day_upkeep: "{name} pays {amount} mana of upkeep for {servant} ({rule})",
    day_sidelined: "{name} sits this Day out (0 mana)", day_nothing: "Nothing to recover.", day_full: "{name}: already full",
    enroll: "Enroll a character", enroll_btn: "Enroll", master_opt: "Master (for a Servant)", no_master: "none",
    enrolled: "{name} enrolled as {id}", name_required: "A name is needed.",
    transfer: "Transfer mana", giver: "From", receiver: "To", amount: "Amount", transfer_btn: "Transfer",
    amount_positive: "The amount is a whole number of at least 1.", mana_moved: "{giver} gave {amount} mana to {receiver}",
    open_encounter: "Open an encounter in this War", open_btn: "Open encounter", default_fight: "Day {n} fight",
    open_hint: "Every character able to fight today joins: alive, not sidelined, with some mana left. In a War the War's characters are its library of sheets: no other library is needed.",
    war_encounters: "Encounters of this War", no_war_encounters: "No encounter yet.", carried: "carried back", open_now: "open",
    back_to_war: "← Back to the War: {name}",
    sim_link: "Automatic 1v1 resolver (d20-na)", sim_link_hint: "Many seeded duels between two sheets: win rates, rounds, damage, and one fight told.",
    sim_title: "Automatic 1v1 resolver (d20-na)", sim_hint: "Melee, one against one, with a weapon and a shield; each fighter parries by default, no dual wielding, no aiming.",
    sim_fighter_a: "Fighter A", sim_fighter_b: "Fighter B", sim_custom: "custom (JSON sheet)", sim_dodge: "Dodge skill (Esquive)",
    sim_shield: "shield", sim_sheet_object: "a sheet is a JSON object", sim_dice: "Dice in use: {dice}",
    sim_fights: "Number of fights", sim_fights_range: "The number of fights is a whole number from 1 to 2000.",
    sim_seed: "Seed (optional)", sim_seed_hint: "random", sim_save_encounter: "Save as an encounter",
    sim_save_text: "Save the outcome as text", sim_start: "Start the combat", sim_reset: "Reset the counters",
    sim_running: "Running {n} fights…", sim_reset_done: "Counters reset: the fighters are kept, start again when ready.",
    sim_copied: "Outcome copied as text", sim_copy_failed: "Copy refused by the browser: select the text below",
    sim_outcome: "Outcome", sim_run: "{n} fights · seed {seed}", sim_fighter: "Fighter", sim_wins: "Wins",
    sim_rate: "Win rate", sim_ci: "95% interval", sim_draws: "Draws", sim_rounds: "Rounds", sim_mean_sd: "mean {mean}, sd {sd}",
    sim_damage: "Damage per hit", sim_mean: "mean {mean}", sim_saved: "Saved as an encounter:", sim_already_saved: "Already saved as an encounter:",
    sim_board_link: "open its board", sim_told: "One fight, told", sim_won: "{name} wins after {rounds} round(s).",
    sim_drawn: "A draw after {rounds} round(s).", sim_as_text: "The outcome as text", sim_download: "Download as a .txt file",
    alert_turn: "Your turn", alert_defend: "Attack: defend", alert_dispute: "New dispute",
    sound_on: "Sound: on", sound_off: "Sound: off", notify_allow: "Allow notifications", notify_on: "Notifications: on",
    notify_blocked: "Notifications blocked", revoked: "Access revoked: this link no longer opens the encounter. Ask the GM for a new one.",
    revoked_state: "access revoked", player_links: "Player links", copy_link: "Copy link", new_link: "New link", revoke: "Revoke",
    links_n: "{n} live link(s)", last_used: "last used {when}", never_used: "never used", link_copied: "Link copied",
    link_made: "New link made and copied", links_revoked: "Links revoked: {name}", no_link: "no live link",
    dice_card: "Dice", entropy_title: "Add entropy before the first roll",
    entropy_hint: "Mix a value of your own into the dice seed, so that not even the server chose every roll in advance (commit-reveal).",
    entropy_value: "Your value", add_entropy: "Add entropy", entropy_added: "Entropy added",
    carry_title: "Carry to another device", carry_hint: "Every encounter and War this browser holds, with their GM links, and its library of sheets: keep it secret.",
    carry_link: "Copy the export link", carry_file: "Download as a file", carry_import: "Import a file",
    carry_done: "Imported: {enc} encounter(s), {war} War(s), {lib} library sheet(s)", carry_bad: "This is not a Fracas export.",
    lang_switch: "Français", create_title: "New encounter", ruleset: "Rule system", name: "Name",
    settings: "Settings", default: "default", create: "Create encounter", your_encounters: "Your encounters",
    loading: "Loading…", gm: "GM console", player: "Player", spectator: "Spectator",
    connecting: "connecting…", connected: "live", reconnecting: "reconnecting…", refused: "access refused",
    round: "Round", phase: "Phase", not_started: "not started", closed: "closed", winner: "Winner",
    order: "Initiative", sides: "Combatants", side: "Side", log: "Log", earlier_lines: "Load earlier lines", pending: "Waiting for a defense",
    deadline: "Deadline:", deadline_turn: "{who}'s turn is due", deadline_defence: "{who}'s defense is due",
    deadline_policy_alert: "then the GM is alerted", deadline_policy_no_defense: "then a pending defense is none",
    deadline_policy_pass: "then the turn passes", deadline_reminded: "reminder sent", deadline_passed: "deadline passed",
    hidden: "hidden", out: "out", no_combatants: "No combatants yet.", no_order: "Initiative not rolled yet.",
    undone_step: "undone", include_hidden: "Include hidden rolls and GM-only resources",
    audit: "Audit", roll_n: "Roll #{n}", version: "version", history: "History", back: "◀ Back",
    forward: "Forward ▶", live_at: "Live · version {v}", viewing: "Viewing version {v}",
    back_to_live: "Back to live", go: "Go", go_version: "Version",
    share: "Share links", gm_link: "GM link (keep it secret)", spectator_link: "Board (spectators)",
    player_link: "Player link: {name}", copy: "Copy", copied: "Copied",
    add_combatant: "Add a combatant", preset: "Preset", custom_sheet: "custom sheet (JSON)", sheet: "Sheet (JSON)",
    add: "Add", controller: "Player name (optional)",
    turn: "Turn", roll_initiative: "Roll initiative", start_combat: "Start combat", end_turn: "End turn",
    first_action: "1st action", second_action: "2nd action", choose_first: "Choose the 1st action", choose_second: "Choose the 2nd action, or nothing",
    nothing: "Nothing", change: "Change", declare_turn: "Confirm the turn", left_after: "({n} left)", chance_of: "{pct}% ({stat} {threshold})",
    unit_half_action: "1 half-action", unit_half_action_n: "{n} half-actions", unit_action: "1 action", unit_action_n: "{n} actions",
    unit_energy: "1 NRJ", unit_energy_n: "{n} NRJ", unit_mana: "1 mana", unit_mana_n: "{n} mana", unit_luck: "1 Luck use", unit_luck_n: "{n} Luck uses",
    dice: "Physical dice (optional)", dice_hint: "e.g. 12 7; used by the next roll",
    actions_of: "Actions of {name}", no_actor: "No one is acting now.", target: "Target", rank: "Rank",
    reactions: "Pending reactions", none_pending: "No attack is waiting for a defense.",
    no_defense: "No defense", answer_for: "Answer for {name}", options_json: "Options (JSON, optional)",
    adjust: "Adjust a resource", combatant: "Combatant", resource: "Resource", delta: "Change",
    reason: "Reason", apply: "Apply", free_roll: "Free roll", expr: "Dice", purpose: "Purpose",
    hidden_roll: "Hidden (GM only)", roll: "Roll", disputes: "Disputes", no_disputes: "No disputed roll.",
    disputed_by: "disputed by {by}: {reason}", export: "Export", copy_last_bb: "Last turn as BBCode",
    copy_last_md: "Last turn as Markdown", copy_all_bb: "Whole log as BBCode", copy_all_md: "Whole log as Markdown",
    undo_close: "Undo and close", undo: "Undo last step", close_reveal: "Close and reveal dice",
    your_controls: "Your combatants", your_turn: "{name}: your turn", defend: "{name} is attacked",
    wait: "{name}: waiting", player_closed: "The encounter is closed: nothing more is played. The dice are revealed; any roll can still be checked or disputed.", who: "Who", why: "Why", action: "Action", die: "Dice", faces: "Faces",
    total: "Total", check: "Check", base: "Base", modifiers: "Modifiers", no_modifiers: "no modifiers",
    threshold: "Threshold", outcome: "Outcome", margin: "Margin", proof: "Proof", source: "Source",
    commitment: "Commitment", rules: "Rules", dispute: "Dispute this roll", dispute_reason: "Why do you dispute it?",
    disputed: "Dispute recorded", close_panel: "Close", history_mode: "History: controls are off while you look back.",
    at_most: "at most", at_least: "at least", plain_roll: "plain roll, no check", seed: "seed {s}, roll number {n}",
    manual_source: "physical dice entered by the GM", proof_committed: "committed", proof_verified: "verified",
    proof_manual: "manual", proof_mismatch: "MISMATCH", not_found: "No such encounter, or no access.",
    closed_note: "The encounter is closed; the dice seeds are revealed.", new_day: "New day",
    sheet_from_preset: "Sheet from preset", event: "Event", ok: "Done",
    o_success: "success", o_failure: "failure", o_critical_success: "critical success", o_critical_failure: "critical failure", error: "Error",

    server_waiting: "Server unreachable: reconnecting… (the command will be sent again)",
    unavailable: "The server cannot reach its database right now: try again in a few seconds.",
    unreachable: "The server cannot be reached.",
    rate_limited: "Too many new encounters from this address: try again in {s} s.",
  },
  fr: {
    docs_title: "API de Fracas", docs_intro: "Toutes les routes HTTP, générées depuis les types du serveur. Les documents eux-mêmes :",
    docs_ws: "le websocket (AsyncAPI 3)", docs_schema: "chaque commande, événement et message websocket (JSON Schema)",
    docs_ops: "Opérations", docs_schemas: "Schémas", docs_params: "Paramètres", docs_body: "Corps de la requête",
    docs_answers: "Réponses", docs_required: "obligatoire", docs_optional: "facultatif", docs_auth_required: "jeton Bearer obligatoire",
    docs_auth_optional: "jeton Bearer facultatif", docs_auth_none: "sans jeton", docs_in: "dans {where}",
    docs_failed: "La description de l'API n'a pas pu être chargée.",
    war: "Guerre", war_gm: "MJ de la Guerre", war_start_title: "Lancer une Guerre", war_start: "Lancer la Guerre", war_name: "Nom de la Guerre",
    war_default_name: "La Cinquième Guerre", war_start_hint: "Une campagne ranks-d100 : les personnages gardent PV, mana et Chance d’une rencontre à l’autre, Jour après Jour.",
    your_wars: "Vos Guerres", war_not_found: "Guerre introuvable ou accès refusé.", war_read_only: "Lecture seule : ce navigateur n’a pas le jeton MJ de la Guerre.",
    day: "Jour", day_n: "Jour {n}", characters: "Personnages", characters_n: "Personnages : {n}", kind: "Type", hp: "PV", mana: "Mana", luck_left: "Chance restante",
    half_ranks: "Demi-rangs utilisés aujourd’hui", status: "État", sidelined: "à l’écart aujourd’hui", dead: "mort", ready: "prêt",
    kind_master: "Maître", kind_servant: "Servant", servant_of: "Servant de {name}", no_characters: "Aucun personnage inscrit.",
    day_recover: "{name} +{hp} PV, +{mana} mana", day_upkeep: "{name} paie {amount} mana d’entretien pour {servant} ({rule})",
    day_sidelined: "{name} ne joue pas ce Jour (0 mana)", day_nothing: "Rien à récupérer.", day_full: "{name} : déjà au maximum",
    enroll: "Inscrire un personnage", enroll_btn: "Inscrire", master_opt: "Maître (pour un Servant)", no_master: "aucun",
    enrolled: "{name} inscrit sous {id}", name_required: "Il faut un nom.",
    transfer: "Transférer du mana", giver: "De", receiver: "À", amount: "Quantité", transfer_btn: "Transférer",
    amount_positive: "La quantité est un entier d’au moins 1.", mana_moved: "{giver} a donné {amount} mana à {receiver}",
    open_encounter: "Ouvrir une rencontre dans cette Guerre", open_btn: "Ouvrir la rencontre", default_fight: "Combat du Jour {n}",
    open_hint: "Chaque personnage en état de se battre aujourd’hui participe : vivant, pas à l’écart, avec du mana. Dans une Guerre, les personnages de la Guerre sont sa bibliothèque de fiches : nul besoin d’une autre.",
    war_encounters: "Rencontres de cette Guerre", no_war_encounters: "Aucune rencontre pour l’instant.", carried: "reportée", open_now: "ouverte",
    back_to_war: "← Retour à la Guerre : {name}",
    sim_link: "Résolution automatique 1v1 (d20-na)", sim_link_hint: "De nombreux duels tirés entre deux fiches : taux de victoire, rounds, dégâts, et un combat raconté.",
    sim_title: "Résolution automatique 1v1 (d20-na)", sim_hint: "Corps à corps, un contre un, avec une arme et un bouclier ; chacun pare par défaut, pas d’ambidextrie, pas de visée.",
    sim_fighter_a: "Combattant A", sim_fighter_b: "Combattant B", sim_custom: "fiche libre (JSON)", sim_dodge: "Compétence Esquive",
    sim_shield: "bouclier", sim_sheet_object: "une fiche est un objet JSON", sim_dice: "Dés utilisés : {dice}",
    sim_fights: "Nombre de combats", sim_fights_range: "Le nombre de combats est un entier de 1 à 2000.",
    sim_seed: "Graine (facultative)", sim_seed_hint: "au hasard", sim_save_encounter: "Enregistrer comme rencontre",
    sim_save_text: "Enregistrer l’issue en texte", sim_start: "Lancer le combat", sim_reset: "Remettre les compteurs à zéro",
    sim_running: "{n} combats en cours…", sim_reset_done: "Compteurs remis à zéro : les combattants restent, relancez quand vous voulez.",
    sim_copied: "Issue copiée en texte", sim_copy_failed: "Copie refusée par le navigateur : sélectionnez le texte ci-dessous",
    sim_outcome: "Issue", sim_run: "{n} combats · graine {seed}", sim_fighter: "Combattant", sim_wins: "Victoires",
    sim_rate: "Taux de victoire", sim_ci: "Intervalle à 95 %", sim_draws: "Nuls", sim_rounds: "Rounds", sim_mean_sd: "moyenne {mean}, écart-type {sd}",
    sim_damage: "Dégâts par coup porté", sim_mean: "moyenne {mean}", sim_saved: "Enregistré comme rencontre :", sim_already_saved: "Déjà enregistré comme rencontre :",
    sim_board_link: "ouvrir son tableau", sim_told: "Un combat, raconté", sim_won: "{name} l’emporte après {rounds} round(s).",
    sim_drawn: "Match nul après {rounds} round(s).", sim_as_text: "L’issue en texte", sim_download: "Télécharger en fichier .txt",
    alert_turn: "À vous", alert_defend: "Attaque : défendez-vous", alert_dispute: "Nouvelle contestation",
    sound_on: "Son : activé", sound_off: "Son : coupé", notify_allow: "Autoriser les notifications", notify_on: "Notifications : activées",
    notify_blocked: "Notifications bloquées", revoked: "Accès révoqué : ce lien n’ouvre plus la rencontre. Demandez-en un nouveau au MJ.",
    revoked_state: "accès révoqué", player_links: "Liens des joueurs", copy_link: "Copier le lien", new_link: "Nouveau lien", revoke: "Révoquer",
    links_n: "{n} lien(s) actif(s)", last_used: "utilisé {when}", never_used: "jamais utilisé", link_copied: "Lien copié",
    link_made: "Nouveau lien créé et copié", links_revoked: "Liens révoqués : {name}", no_link: "aucun lien actif",
    dice_card: "Dés", entropy_title: "Ajouter de l’entropie avant le premier jet",
    entropy_hint: "Mêlez une valeur à vous à la graine des dés : même le serveur n’a pas choisi chaque jet d’avance (engagement puis révélation).",
    entropy_value: "Votre valeur", add_entropy: "Ajouter l’entropie", entropy_added: "Entropie ajoutée",
    carry_title: "Emporter sur un autre appareil", carry_hint: "Toutes les rencontres et Guerres de ce navigateur, avec leurs liens de MJ, et sa bibliothèque de fiches : à garder secret.",
    carry_link: "Copier le lien d’export", carry_file: "Télécharger en fichier", carry_import: "Importer un fichier",
    carry_done: "Importé : {enc} rencontre(s), {war} Guerre(s), {lib} fiche(s) de bibliothèque", carry_bad: "Ce n’est pas un export de Fracas.",
    lang_switch: "English", create_title: "Nouvelle rencontre", ruleset: "Système de règles", name: "Nom",
    settings: "Réglages", default: "par défaut", create: "Créer la rencontre", your_encounters: "Vos rencontres",
    loading: "Chargement…", gm: "Console du MJ", player: "Joueur", spectator: "Spectateur",
    connecting: "connexion…", connected: "en direct", reconnecting: "reconnexion…", refused: "accès refusé",
    round: "Tour", phase: "Phase", not_started: "pas commencé", closed: "close", winner: "Vainqueur",
    order: "Initiative", sides: "Combattants", side: "Camp", log: "Journal", earlier_lines: "Charger les lignes précédentes", pending: "En attente d’une défense",
    deadline: "Délai :", deadline_turn: "le tour de {who} est attendu pour le", deadline_defence: "la défense de {who} est attendue pour le",
    deadline_policy_alert: "ensuite le MJ est alerté", deadline_policy_no_defense: "ensuite une défense en attente est « aucune »",
    deadline_policy_pass: "ensuite le tour passe", deadline_reminded: "rappel envoyé", deadline_passed: "délai dépassé",
    hidden: "caché", out: "hors combat", no_combatants: "Aucun combattant.", no_order: "Initiative pas encore tirée.",
    undone_step: "annulé", include_hidden: "Inclure les jets cachés et les ressources réservées au MJ",
    audit: "Audit", roll_n: "Jet n° {n}", version: "version", history: "Historique", back: "◀ Reculer",
    forward: "Avancer ▶", live_at: "En direct · version {v}", viewing: "Vous regardez la version {v}",
    back_to_live: "Revenir au direct", go: "Aller", go_version: "Version",
    share: "Liens à partager", gm_link: "Lien du MJ (à garder secret)", spectator_link: "Tableau (spectateurs)",
    player_link: "Lien joueur : {name}", copy: "Copier", copied: "Copié",
    add_combatant: "Ajouter un combattant", preset: "Modèle", custom_sheet: "fiche libre (JSON)", sheet: "Fiche (JSON)",
    add: "Ajouter", controller: "Nom du joueur (facultatif)",
    turn: "Tour de jeu", roll_initiative: "Tirer l’initiative", start_combat: "Commencer le combat", end_turn: "Finir le tour",
    first_action: "1re action", second_action: "2e action", choose_first: "Choisir la 1re action", choose_second: "Choisir la 2e action, ou rien",
    nothing: "Rien", change: "Changer", declare_turn: "Confirmer le tour", left_after: "(reste {n})", chance_of: "{pct} % ({stat} {threshold})",
    unit_half_action: "1 demi-action", unit_half_action_n: "{n} demi-actions", unit_action: "1 action", unit_action_n: "{n} actions",
    unit_energy: "1 NRJ", unit_energy_n: "{n} NRJ", unit_mana: "1 mana", unit_mana_n: "{n} mana", unit_luck: "1 usage de Chance", unit_luck_n: "{n} usages de Chance",
    dice: "Dés physiques (facultatif)", dice_hint: "ex. 12 7 ; pour le prochain jet",
    actions_of: "Actions de {name}", no_actor: "Personne n’agit.", target: "Cible", rank: "Rang",
    reactions: "Réactions en attente", none_pending: "Aucune attaque n’attend de défense.",
    no_defense: "Pas de défense", answer_for: "Répondre pour {name}", options_json: "Options (JSON, facultatif)",
    adjust: "Ajuster une ressource", combatant: "Combattant", resource: "Ressource", delta: "Variation",
    reason: "Raison", apply: "Appliquer", free_roll: "Jet libre", expr: "Dés", purpose: "But",
    hidden_roll: "Caché (MJ seul)", roll: "Lancer", disputes: "Contestations", no_disputes: "Aucun jet contesté.",
    disputed_by: "contesté par {by} : {reason}", export: "Export", copy_last_bb: "Dernier tour en BBCode",
    copy_last_md: "Dernier tour en Markdown", copy_all_bb: "Tout le journal en BBCode", copy_all_md: "Tout le journal en Markdown",
    undo_close: "Annuler et clore", undo: "Annuler la dernière étape", close_reveal: "Clore et révéler les dés",
    your_controls: "Vos combattants", your_turn: "{name} : à vous", defend: "{name} est attaqué",
    player_closed: "La rencontre est close : plus rien ne se joue. Les dés sont révélés ; chaque jet peut encore être vérifié ou contesté.",
    wait: "{name} : en attente", who: "Qui", why: "Pourquoi", action: "Action", die: "Dés", faces: "Faces",
    total: "Total", check: "Test", base: "Base", modifiers: "Modificateurs", no_modifiers: "aucun modificateur",
    threshold: "Seuil", outcome: "Résultat", margin: "Marge", proof: "Preuve", source: "Source",
    commitment: "Engagement", rules: "Règles", dispute: "Contester ce jet", dispute_reason: "Pourquoi le contestez-vous ?",
    disputed: "Contestation enregistrée", close_panel: "Fermer", history_mode: "Historique : les commandes sont coupées.",
    at_most: "au plus", at_least: "au moins", plain_roll: "jet simple, sans test", seed: "graine {s}, jet n° {n}",
    manual_source: "dés physiques saisis par le MJ", proof_committed: "engagé", proof_verified: "vérifié",
    proof_manual: "manuel", proof_mismatch: "DISCORDANCE", not_found: "Rencontre introuvable ou accès refusé.",
    closed_note: "La rencontre est close ; les graines des dés sont révélées.", new_day: "Nouveau jour",
    sheet_from_preset: "Fiche du modèle", event: "Événement", ok: "Fait",
    o_success: "réussite", o_failure: "échec", o_critical_success: "réussite critique", o_critical_failure: "échec critique", error: "Erreur",

    server_waiting: "Serveur injoignable : reconnexion… (la commande sera renvoyée)",
    unavailable: "Le serveur n'atteint pas sa base de données pour l'instant : réessayez dans quelques secondes.",
    unreachable: "Le serveur est injoignable.",
    rate_limited: "Trop de nouvelles rencontres depuis cette adresse : réessayez dans {s} s.",
  },
};

for (const l of ["en", "fr"]) Object.assign(STRINGS[l], CONSOLE_STRINGS[l], CHART_STRINGS[l], SETUP_STRINGS[l], SHEET_STRINGS[l]);

const KEY = "fracas:lang";
let current = (() => {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === "en" || saved === "fr") return saved;
  } catch { /* storage may be off */ }
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
})();

export function lang() { return current; }

export function setLang(value) {
  current = value === "fr" ? "fr" : "en";
  try { localStorage.setItem(KEY, current); } catch { /* storage may be off */ }
  document.documentElement.lang = current;
}

/** An outcome code in words ("critical_success" -> "critical success"). */
export function outcome(code) {
  if (!code) return "";
  const key = `o_${code}`;
  const text = STRINGS[current][key] ?? STRINGS.en[key];
  return text ?? String(code).replace(/_/g, " ");
}

export function t(key, vars = {}) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? ""));
}

/** A server object's label in the current language (`label` / `label_fr`, `text` / `text_fr`). */
export function localized(obj, field = "label") {
  if (!obj) return "";
  return (current === "fr" && obj[`${field}_fr`]) || obj[field] || "";
}
