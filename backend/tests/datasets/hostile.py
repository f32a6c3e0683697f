"""What the hostile-dump tests look at around a load: marker files on the host and in the chroots,
the server's accounts, client processes left, and a sample-like dump with its own schema."""

import os
import uuid
from pathlib import Path

import psutil
import zstandard

from upgradelab.targets.provisioners.base import ServerConnection

CHROOTS = Path("/var/lib/upgradelab/chroots")


def marker_name() -> str:
    """A file name no test made before: `/tmp/<name>` is where a hostile dump aims."""
    return f"upgradelab-marker-{uuid.uuid4().hex[:12]}"


def markers_found(name: str) -> list[Path]:
    """Every `/tmp/<name>` that exists: on the host and inside each lab chroot."""
    roots = [Path("/"), *(p for p in CHROOTS.iterdir() if p.is_dir())] if CHROOTS.is_dir() else [Path("/")]
    return [root / "tmp" / name for root in roots if (root / "tmp" / name).exists()]


def accounts(admin: ServerConnection) -> set[tuple[str, str]]:
    """(user, host) of every account on the server."""
    with admin.cursor() as cursor:
        cursor.execute("SELECT User, Host FROM mysql.user")
        return {(str(user), str(host)) for user, host in cursor.fetchall()}


def clients_left(port: int, *, started: bool = False) -> list[psutil.Process]:
    """Command-line client processes for the server on `port` (by their argv): with `started`, only
    the client itself (not a `chroot` still about to exec it)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        argv = process.info["cmdline"] or []
        clients = [a for a in (argv[:1] if started else argv) if a.endswith(("/mysql", "/mariadb"))]
        if f"--port={port}" in argv and clients:
            found.append(process)
    return found


SAMPLE = """/*M!999999\\- enable the sandbox mode */
-- a sample-like dump: its own schema, DEFINER=root@localhost objects, DELIMITER routines
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
DROP SCHEMA IF EXISTS sample_own;
CREATE SCHEMA sample_own;
USE sample_own;

CREATE TABLE `film` (
  `id` int NOT NULL,
  `title` varchar(64) NOT NULL,
  `length` int NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES `film` WRITE;
/*!40000 ALTER TABLE `film` DISABLE KEYS */;
INSERT INTO `film` VALUES (1,'ACADEMY; DINOSAUR',86),(2,'ACE \\\\! GOLDFINGER',48),(3,'it''s -- here',50);
/*!40000 ALTER TABLE `film` ENABLE KEYS */;
UNLOCK TABLES;

CREATE TABLE `payment` (
  `id` int NOT NULL AUTO_INCREMENT,
  `amount` decimal(5,2) NOT NULL,
  `note` varchar(32) NOT NULL DEFAULT '',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE `visit` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `at` datetime NOT NULL);

/*!50001 DROP VIEW IF EXISTS `film_list`*/;
/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */
/*!50001 VIEW `film_list` AS select `film`.`id` AS `id`,`film`.`title` AS `title` from `film` */;

/*!50003 SET @saved_sql_mode       = @@sql_mode */ ;
/*!50003 SET sql_mode              = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION' */ ;
DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `payment_bi` BEFORE INSERT \
ON `payment` FOR EACH ROW SET NEW.note = CONCAT('paid ', NEW.amount) */;;
DELIMITER ;
DELIMITER ;;
CREATE DEFINER=`root`@`localhost` FUNCTION `film_count`(p INT) RETURNS int
    READS SQL DATA
BEGIN
  DECLARE n INT;
  SELECT COUNT(*) INTO n FROM film WHERE length > p;
  RETURN n;
END ;;
CREATE DEFINER=`root`@`localhost` FUNCTION `log_visit`() RETURNS int
    MODIFIES SQL DATA
BEGIN
  INSERT INTO visit (at) VALUES (NOW());
  RETURN LAST_INSERT_ID();
END ;;
CREATE DEFINER='root'@'localhost' PROCEDURE `add_payment`(IN a DECIMAL(5,2))
BEGIN
  INSERT INTO payment (amount) VALUES (a);
END ;;
DELIMITER ;
/*!50003 SET sql_mode              = @saved_sql_mode */ ;
DELIMITER ;;
/*!50106 CREATE*/ /*!50117 DEFINER=`root`@`localhost`*/ /*!50106 EVENT `tidy` ON SCHEDULE EVERY 1 DAY \
ON COMPLETION NOT PRESERVE DISABLE DO DELETE FROM payment WHERE amount < 0 */ ;;
DELIMITER ;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
"""


def slow_scan_dump(path: Path, mib: int = 64, every: int = 512) -> Path:
    """A zstd dump of `mib` MiB of `/*!99999 */` version comments (issue 44: each read byte by byte,
    ~5 MiB per CPU second), one in `every` holding 6 random hex digits so it compresses about 700:1,
    under the ratio bound of 1000:1 as the issue's 2 MB file did."""
    unit, size = b"/*!99999 */", mib << 20
    with path.open("wb") as out, zstandard.ZstdCompressor(level=3).stream_writer(out) as writer:
        written, count = 0, 0
        while written < size:
            block = bytearray()
            while len(block) < 1 << 20:
                count += 1
                block += b"/*!99999 " + os.urandom(3).hex().encode() + b"*/" if count % every == 0 else unit
            writer.write(bytes(block))
            written += len(block)
    return path
