"""Pure statistics: no database, no SQLAlchemy, no upgradelab package but this one."""
