"""schema.sql is the install, in order, and nothing else (issue 22, history in one place).

A fresh database and the same database after schema.sql ran again hold the same
catalog (tables and columns, constraints, indexes, functions, triggers, sequences, the
server role's grants), and the file holds no upgrade step: no database is deployed yet,
so what would upgrade an older one (a DROP, a RENAME, an ADD COLUMN) has no place in it.
Against a real PostgreSQL, in a database of its own.
"""

from __future__ import annotations

import re
from typing import Any

import asyncpg

from server.store.db import SCHEMA_PATH, apply_schema, schema_is_current
from tests.conftest import fresh_database

# What the server's tables, functions and triggers are, as the catalog says it.
CATALOG = {
    "columns": """
        SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '')
          FROM information_schema.columns WHERE table_schema = 'public'""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)
          FROM pg_constraint WHERE connamespace = 'public'::regnamespace""",
    "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    "functions": """
        SELECT proname, pg_get_function_identity_arguments(oid), md5(prosrc)
          FROM pg_proc WHERE pronamespace = 'public'::regnamespace""",
    "triggers": """
        SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid)
          FROM pg_trigger WHERE NOT tgisinternal""",
    "sequences": "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'",
    "grants": """
        SELECT table_name, privilege_type FROM information_schema.role_table_grants
         WHERE grantee = 'fracas_app'""",
}


async def catalog(conn: asyncpg.Connection[Any]) -> dict[str, list[tuple[Any, ...]]]:
    return {
        part: sorted(tuple(row) for row in await conn.fetch(query))
        for part, query in CATALOG.items()
    }


async def test_schema_sql_gives_a_fresh_database_and_a_reapplied_one_the_same_catalog(
    server_url: str,
) -> None:
    async with fresh_database(server_url) as url:  # schema.sql applied once
        conn = await asyncpg.connect(url)
        try:
            fresh = await catalog(conn)
            assert await schema_is_current(conn)  # a start would write nothing

            await apply_schema(conn)
            await apply_schema(conn)  # as `fracas migrate` or a start after an edit does

            assert await catalog(conn) == fresh
        finally:
            await conn.close()
    tables = {table for table, *_ in fresh["columns"]}
    assert {"events", "command_keys", "tokens", "dice_seeds", "webhooks"} <= tables
    assert ("tokens", "scope") in {(t, c) for t, c, *_ in fresh["columns"]}
    functions = {name for name, *_ in fresh["functions"]}
    assert "fracas_events_before_insert" in functions
    assert "fracas_append" not in functions  # the previous release's append: gone


def statements() -> str:
    """schema.sql without its comments (what PostgreSQL runs)."""
    return re.sub(r"--[^\n]*", "", SCHEMA_PATH.read_text(encoding="utf-8"))


def test_schema_sql_holds_no_drop_rename_or_added_column_only_the_install() -> None:
    sql = statements()
    assert "CREATE TABLE IF NOT EXISTS tokens" in sql  # the text is read, not an empty file
    for step in (r"\bDROP\b", r"\bRENAME\b", r"\bADD\s+COLUMN\b", r"\bALTER\s+TABLE\b"):
        found = re.search(step, sql, re.IGNORECASE)
        assert found is None, f"schema.sql upgrades in place: {found.group(0) if found else ''}"
