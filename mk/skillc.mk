# placeholder, replaced below
SKILLC_RUN_TARGETS :=
