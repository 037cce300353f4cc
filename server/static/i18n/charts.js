// Strings of the charts (charts.js: dice fairness, the resolver's odds), merged into
// i18n.js's tables like the console's.
export const CHART_STRINGS = {
  en: {
    dice_title: "Dice fairness", dice_none: "No dice rolled yet.", numbers: "The numbers",
    face: "Face", count: "Count", expected: "Expected", src_server: "Server dice", src_manual: "Physical dice (entered by the GM)",
    rolls_n: "{n} rolls", fair: "consistent with a fair die (p = {p})", unusual: "unusual: p = {p}",
    few: "few rolls: expect at least 5 per face before judging", chart_dice: "{die}: {n} rolls, bars observed per face, line expected ({e} each)",
    hidden_note: "Hidden GM rolls count here only once the encounter closes.",
    bucket: "Range", chart_hist: "{title}: {n} in {k} ranges", rate: "Win rate", low: "95% low", high: "95% high",
    chart_rates: "Win rates with their 95% intervals",
    sim_charts: "Charts", hist_rounds: "Rounds per fight", hist_damage: "Damage per hit",
    pin: "Keep for comparison", unpin: "Stop comparing", compare: "Side by side",
    matchup_1: "Kept run", matchup_2: "This run", compare_hint: "Change a fighter (a shield, a skill) and start again to compare.",
    win_delta: "{a}: win rate {from} → {to} ({d} points)",
  },
  fr: {
    dice_title: "Équité des dés", dice_none: "Aucun dé lancé pour l’instant.", numbers: "Les chiffres",
    face: "Face", count: "Nombre", expected: "Attendu", src_server: "Dés du serveur", src_manual: "Dés physiques (saisis par le MJ)",
    rolls_n: "{n} jets", fair: "compatible avec un dé équilibré (p = {p})", unusual: "inhabituel : p = {p}",
    few: "peu de jets : il en faut au moins 5 attendus par face pour juger", chart_dice: "{die} : {n} jets, barres observées par face, ligne attendue ({e} chacune)",
    hidden_note: "Les jets cachés du MJ ne comptent ici qu’une fois la rencontre close.",
    bucket: "Intervalle", chart_hist: "{title} : {n} en {k} intervalles", rate: "Taux de victoire", low: "Bas (95 %)", high: "Haut (95 %)",
    chart_rates: "Taux de victoire et leurs intervalles à 95 %",
    sim_charts: "Graphiques", hist_rounds: "Rounds par combat", hist_damage: "Dégâts par coup porté",
    pin: "Garder pour comparer", unpin: "Ne plus comparer", compare: "Côte à côte",
    matchup_1: "Combat gardé", matchup_2: "Ce combat", compare_hint: "Changez un combattant (un bouclier, une compétence) et relancez pour comparer.",
    win_delta: "{a} : taux de victoire {from} → {to} ({d} points)",
  },
};
