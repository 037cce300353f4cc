"""Every rule system's settings described in French (`description_fr` in GET
/api/rulesets), in the seeds' vocabulary. A test checks that no setting lacks one."""

from __future__ import annotations

__all__ = ["DESCRIPTIONS_FR", "description_fr"]

DESCRIPTIONS_FR: dict[str, dict[str, str]] = {
    "plain-d100": {
        "critical_range": "un d100 inférieur ou égal à ceci est une réussite critique",
        "critical_damage": "dégâts d'un coup critique",
        "second_wind_heal": "PV rendus par le second souffle",
    },
    "d20-na": {
        "test.success_cmp": "un test au d20 réussit si le jet est <= la caractéristique (lt : <)",
        "differential.tie": "qui gagne à marges égales",
        "differential.attack_prevails": "une parade qui perd le différentiel",
        "round.budget_half_units": "demi-actions par Round",
        "round.reactions_out_of_slot": "les défenses se paient aussitôt, hors créneau",
        "round.allow_pass": "un combattant peut passer le reste du Round",
        "defense.counter_scope": "ce que compte la 2e ou 3e parade ou esquive",
        "defense.max_per_type": "parades (et esquives) par Round",
        "parry.roll_stat": "contre quoi se lance une parade",
        "dodge.unskilled_divisor": "diviseur de HAB sans la compétence Esquive",
        "shield.parry_reroll": "relances gratuites d'une parade au bouclier ratée",
        "location.unaimed_malus": "malus d'ATT d'un coup non visé",
        "location.side_for": "zones qui ont une gauche et une droite",
        "range.band_rounding": "décompte des tranches de portée",
        "ranged_parry.requires": "ce qu'exige la parade d'un projectile",
        "damage.floor": "dégâts minimum d'un coup",
        "maneuver.effects": "effet de toucher, immobiliser, faire chuter (le MJ raconte)",
        "init.tie_break": "égalités d'INI",
        "crit.on_natural_1": "effet d'un 1 naturel",
        "crit.on_natural_20": "effet d'un 20 naturel",
        "profile": "profil de règles",
        "resolver.defense_policy": "comment se défend le résolveur 1 contre 1",
    },
    "ranks-d100": {
        "crit.success_max": "un d100 naturel inférieur ou égal à ceci est une réussite critique"
        " (provisoire : la table source est perdue)",
        "crit.fail_min": "un d100 naturel supérieur ou égal à ceci est un échec critique"
        " (provisoire : la table source est perdue)",
        "tables": "valeurs de table remplacées, par clé '<table>.<RANG>', par ex."
        " {'reduction.master.B': 30} pour l'exemple tel qu'imprimé",
        "half_rank.value_examples_mode": "valeurs des demi-rangs prises des tables, ou des"
        " échelles d'exemple de RK-12",
        "half_rank.step_rule": "un demi-rang décale une valeur de table de écart/5",
        "half_rank.value_tables": "familles de tables que décalent les demi-rangs",
        "threshold_source": "le seuil vient du rang de la caractéristique qui gouverne, ou du"
        " rang d'action choisi",
        "complex_actions_per_phase": "actions complexes par phase",
        "luck_consumes_complex_slot": "un jet de Chance en phase d'attaque prend l'action complexe",
        "pool.base_hp": "réserve de PV avant le modificateur d'Endurance",
        "pool.base_mana": "réserve de PM avant le modificateur de Mana",
        "luck.scope": "les jets de Chance valent pour la Guerre (portés par la fiche) ou se"
        " rechargent à chaque RP",
        "half_rank.activation_scope": "une activation (ou désactivation) dure un jet, ou le reste"
        " du RP",
        "reduction.rank_source": "réduction au rang de la caractéristique du défenseur",
        "counter.allow_lower_rank": "une Contre-Attaque peut être d'un rang inférieur",
        "counter.elemental_rules": (
            "une Contre-Attaque par un utilisateur de Magie Élémentaire : réglée par le MJ"
            " (ses règles ne sont pas dans la source), ou par les règles habituelles"
        ),
        "counter.partial_block": "ce que bloque une Contre-Attaque ratée",
        "chain.clamp": "les réductions ramènent chaque coup à 0 au moins, ou le total",
        "flee.compare": "comment se compare « une Agilité plus haute »",
        "flee.block_is_free": "contrer une Fuite ne prend pas l'attaque de celui qui la contre",
        "luck.expires": "un résultat de Chance vaut pour la prochaine action au d100",
        "init.tie_break": "égalités d'initiative : Agilité la plus haute, puis relance entre"
        " ex aequo",
        "init.frequency": "l'initiative se tire une fois par combat",
        "threshold.clamp": "ramener les seuils entre 1 et 100",
        "crit.carry_stack": "plusieurs critiques dans un Tour s'additionnent, ou comptent une fois",
        "intercept.reduction_table": "table de réduction d'un Servant qui intercepte",
        "mana.allow_spend_to_zero": "une action peut dépenser le dernier PM (puis RK-26)",
        "health_malus.stats": "caractéristiques touchées par le malus de santé",
        "survival.tour_of_death": "les Tours de survie d'un Servant (RK-46) comptent depuis le"
        " Tour de la mort de son Master (RK-AMB-21 : décomptés à la fin de chaque Tour, un"
        " Servant de Mana E joue donc la fin de ce Tour), ou depuis le Tour suivant",
        "servant.magic": "une fiche de Servant peut porter la caractéristique Magie, seulement"
        " comme chance de ses Sorts Avancés (RK-58), ou jamais (RK-55 réserve la Magie aux"
        " Masters ; RK-58 reste alors inutilisée)",
        "multi.defense": "chaque défenseur visé répond aussitôt",
    },
    "d100-tcs": {
        "crit.success_max": "d100 naturel inférieur ou égal : réussite critique",
        "crit.fail_min": "d100 naturel supérieur ou égal : échec critique",
        "crit.pc_fallback": "l'échec critique d'un PJ tant que la table d10 manque",
        "crit.table_d10": "les 10 entrées de maladresse du MJ pour les PJ (la table source manque)",
        "crit_fail.npc_default": "qui blesse la maladresse d'un PNJ",
        "crit_fail.cancels": "ce qu'arrête une maladresse",
        "crit_success.double": "ce que double une réussite critique",
        "declare.timing": "quand se déclarent les deux actions",
        "actions.focus.bonus": "bonus de la concentration à la prochaine TCS",
        "actions.focus.cost": "actions que coûte une concentration",
        "actions.disengage.cost": "actions que coûte une rupture de combat",
        "encircle.mode": "comment se sait l'encerclement",
        "encircle.bonus": "bonus à chaque TCS contre une cible encerclée",
        "friendly_fire.window": "les jets ratés jusqu'au seuil + ceci touchent un allié",
        "friendly_fire.ally_pick": "quel allié au contact est touché",
        "long_range.factor_pct": "seuil à longue portée, en pourcentage",
        "long_range.apply": "quand s'applique le facteur de longue portée",
        "rounding": "arrondi des seuils mis à l'échelle",
        "aoo.per": "les attaques d'opportunité se comptent par",
        "aoo.max": "attaques d'opportunité par période",
        "aoo.engage_on": "une attaque au corps-à-corps met les deux au contact quel que soit le"
        " jet, ou seulement si elle touche",
        "last_stand.min_hp_before": "PV avant le coup pour un dernier sursaut",
        "last_stand.npc": "les PNJ ont aussi un dernier sursaut",
        "rules.flight_advanced": "fuite et moral (règle avancée)",
        "morale.check_each_round": "un moral bas se teste à chaque round",
        "morale.deliberate_cost": "points de moral perdus par une fuite volontaire",
        "morale.check_max": "moral à partir duquel (ou en dessous) se fait un test de moral",
        "morale.threshold_factor": "seuil du test de moral par point de moral",
        "pursuit.tie": "qui gagne une confrontation d'END à égalité",
        "pursuit.actions_per_pursuer": "attaques immédiates sur un fuyard rattrapé",
        "flee.ranged_rounds": "rounds pendant lesquels on peut encore tirer sur un fuyard",
        "flee.distance_per_round_m": "mètres que gagne un fuyard par round",
        "spell.prep_consecutive": "la préparation d'un sort ne doit pas s'interrompre",
        "piercing.pr_damage": "PR qu'une armure perd sous un coup perforant",
        "pierce_proof.removes": "ce qu'annule l'anti-perforation",
        "armor.breaking_hit_pp": "PP d'une armure sur le coup qui la brise",
        "armor.overflow": "dégâts de PR au-delà d'une dégradation",
        "ignore_armor.single.under_pr": "un coup qui ignore une armure touche la PR de la"
        " sous-couche",
        "ignore_armor.double.routing": "dégâts qui ignorent deux armures",
        "armor.end_check": "armure plus lourde que ne le permet l'END",
        "magic_items.overload": "objets qui demandent plus de MM que le naturel",
        "potion.drink_in_melee": "boire au contact, en mêlée",
        "init.tie_break": "égalités d'initiative (note du MJ : le plus valide d'abord)",
        "init.reroll_each_round": "l'initiative se tire à chaque round",
    },
}


# The encounter's own settings, common to every rule system (domain.encounter.CORE_SETTINGS).
CORE_FR: dict[str, str] = {
    "fight.stop_when_decided": "quand un seul camp reste debout, les tours s'arrêtent jusqu'à"
    " ce que le MJ clôture ou poursuive",
    "deadline.hours": "heures que peut attendre un tour ou une défense en attente (0 : pas"
    " de délai) ; passée la moitié, un rappel ; passé le tout, la règle choisie s'applique",
    "deadline.policy": "ce que fait un délai dépassé : alert (le MJ est seulement alerté),"
    " no_defense (une défense en attente est répondue « aucune »), pass (le tour se termine ;"
    " une défense est répondue « aucune »)",
}


def description_fr(ruleset: str, key: str) -> str:
    """A setting's description in French ("" if none was written: a test forbids that)."""
    return DESCRIPTIONS_FR.get(ruleset, {}).get(key) or CORE_FR.get(key, "")
