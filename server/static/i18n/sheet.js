// Strings of the player's own sheet (encounter/sheet.js), merged into i18n.js's tables.
export const SHEET_STRINGS = {
  en: {
    sheet_title: "Your sheet", sheet_stats: "Stats", sheet_resources: "Resources",
    sheet_uses: "Once per session", sheet_uses_none: "Nothing on this sheet is limited to once per session.",
    sheet_left: "{left} of {limit} left", sheet_spent: "used", sheet_kept: "The GM keeps this sheet.",
    sheet_list_weapons: "Weapons", sheet_list_items: "Items", sheet_list_spells: "Spells",
    sheet_list_noble_phantasms: "Noble Phantasms", sheet_list_skills: "Skills", sheet_list_maintained: "Maintained",
  },
  fr: {
    sheet_title: "Votre fiche", sheet_stats: "Caractéristiques", sheet_resources: "Ressources",
    sheet_uses: "Une fois par session", sheet_uses_none: "Rien sur cette fiche n’est limité à une fois par session.",
    sheet_left: "encore {left} sur {limit}", sheet_spent: "utilisé", sheet_kept: "Le MJ garde cette fiche.",
    sheet_list_weapons: "Armes", sheet_list_items: "Objets", sheet_list_spells: "Sorts",
    sheet_list_noble_phantasms: "Noble Phantasms", sheet_list_skills: "Compétences", sheet_list_maintained: "Entretenus",
  },
};
