/**
 * The database of `demo/sql`: `harbor_logistics`, a small made-up shipping company (ports, ships,
 * crew, voyages, cargo), written for intercode as a MySQL dump in mysqldump's style, so that every
 * SQL engine (SQLite, MariaDB/MySQL, PostgreSQL) builds it through the same dump reader.
 *
 * Deliberate details the tasks rely on: NULLs (ports without an opening year, ships without a home
 * port, crew without a ship or an email, voyages not yet arrived, cargo without a declared value),
 * apostrophes (`St. John's`, `Captain's Lantern`, `O'Leary`), text written with varying capitals
 * (`Container`/`container`, `Tanker`/`TANKER`, `Grain`/`grain`), a port no voyage touches and a ship
 * that has not sailed yet. All values are fixed; nothing depends on the current date.
 */
export const DEMO_SQL_DATABASE = 'harbor_logistics';

export const DEMO_SQL_DUMP = `-- intercode demo/sql database: harbor_logistics
-- A small, made-up shipping company. Hand-written in the style of mysqldump.

/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

CREATE DATABASE /*!32312 IF NOT EXISTS*/ \`harbor_logistics\` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */;

USE \`harbor_logistics\`;

--
-- Table structure for table \`ports\`
--

DROP TABLE IF EXISTS \`ports\`;
CREATE TABLE \`ports\` (
  \`port_id\` int(11) NOT NULL,
  \`name\` varchar(60) NOT NULL,
  \`country\` varchar(40) NOT NULL,
  \`berths\` int(11) NOT NULL,
  \`max_draft_m\` decimal(4,1) NOT NULL,
  \`opened_year\` int(11) DEFAULT NULL,
  PRIMARY KEY (\`port_id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

LOCK TABLES \`ports\` WRITE;
/*!40000 ALTER TABLE \`ports\` DISABLE KEYS */;
INSERT INTO \`ports\` VALUES
(1,'Rotterdam','Netherlands',42,24.0,1872),
(2,'Hamburg','Germany',38,15.1,1189),
(3,'Antwerp','Belgium',35,16.0,1811),
(4,'Bergen','Norway',12,11.5,NULL),
(5,'Valencia','Spain',20,16.5,1791),
(6,'Gdansk','Poland',18,15.0,1997),
(7,'Le Havre','France',22,14.5,1517),
(8,'Felixstowe','United Kingdom',9,14.5,1875),
(9,'Aarhus','Denmark',10,13.0,NULL),
(10,'Piraeus','Greece',25,18.0,1924),
(11,'St. John''s','Canada',6,12.0,NULL),
(12,'Tromso','Norway',5,10.5,1794),
(13,'Lisbon','Portugal',14,12.5,NULL);
/*!40000 ALTER TABLE \`ports\` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table \`ships\`
--

DROP TABLE IF EXISTS \`ships\`;
CREATE TABLE \`ships\` (
  \`ship_id\` int(11) NOT NULL,
  \`name\` varchar(60) NOT NULL,
  \`ship_type\` varchar(20) NOT NULL,
  \`flag\` varchar(40) NOT NULL,
  \`built_year\` int(11) NOT NULL,
  \`gross_tonnage\` int(11) NOT NULL,
  \`home_port_id\` int(11) DEFAULT NULL,
  PRIMARY KEY (\`ship_id\`),
  KEY \`home_port_id\` (\`home_port_id\`),
  CONSTRAINT \`ships_ibfk_1\` FOREIGN KEY (\`home_port_id\`) REFERENCES \`ports\` (\`port_id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

LOCK TABLES \`ships\` WRITE;
INSERT INTO \`ships\` VALUES
(1,'Northern Star','Container','Netherlands',2012,94500,1),
(2,'Amber Tide','Tanker','Norway',2008,61200,4),
(3,'Grey Heron','Bulk carrier','Malta',2015,43800,10),
(4,'Captain''s Lantern','container','Germany',2019,151000,2),
(5,'Silver Gannet','Reefer','Denmark',2004,12900,9),
(6,'Morning Cedar','Ro-Ro','France',2017,58700,7),
(7,'Blue Fjord','TANKER','Norway',2011,83000,12),
(8,'Iron Pelican','Bulk carrier','Panama',1999,38900,6),
(9,'Quiet Harbour','Container','United Kingdom',2021,120400,8),
(10,'Sea Lark','reefer','Spain',2009,9800,5),
(11,'Copper Wren','Container','Belgium',2014,76000,3),
(12,'Old Mariner','Bulk carrier','Liberia',1994,29400,NULL),
(13,'Kestrel','Ro-Ro','Netherlands',2020,47300,1),
(14,'Harbour Light','Tanker','Canada',2016,55800,11),
(15,'Drifting Pine','CONTAINER','Portugal',2023,31000,NULL);
UNLOCK TABLES;

--
-- Table structure for table \`crew\`
--

DROP TABLE IF EXISTS \`crew\`;
CREATE TABLE \`crew\` (
  \`crew_id\` int(11) NOT NULL,
  \`ship_id\` int(11) DEFAULT NULL,
  \`full_name\` varchar(80) NOT NULL,
  \`job_title\` varchar(30) NOT NULL,
  \`hired_on\` date NOT NULL,
  \`daily_wage\` decimal(7,2) NOT NULL,
  \`email\` varchar(80) DEFAULT NULL,
  PRIMARY KEY (\`crew_id\`),
  KEY \`ship_id\` (\`ship_id\`),
  CONSTRAINT \`crew_ibfk_1\` FOREIGN KEY (\`ship_id\`) REFERENCES \`ships\` (\`ship_id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

LOCK TABLES \`crew\` WRITE;
INSERT INTO \`crew\` VALUES
(1,1,'Ingrid Vos','Captain','2010-04-01',620.00,'ingrid.vos@example.org'),
(2,2,'Olav Lunde','Captain','2007-09-15',640.00,NULL),
(3,3,'Eleni Markou','Captain','2014-02-20',590.00,'eleni.markou@example.org'),
(4,4,'Jonas Becker','Captain','2019-06-01',610.00,'jonas.becker@example.org'),
(5,5,'Freja Holm','Captain','2005-11-11',575.00,NULL),
(6,6,'Amelie Laurent','Captain','2016-03-07',600.00,'amelie.laurent@example.org'),
(7,7,'Sigrid Nilsen','Captain','2012-08-30',655.00,'sigrid.nilsen@example.org'),
(8,8,'Tomasz Wrobel','Captain','2001-01-15',560.00,NULL),
(9,9,'Niamh O''Leary','Captain','2021-05-10',630.00,'niamh.oleary@example.org'),
(10,10,'Pablo Serrano','Captain','2009-07-22',570.00,'pablo.serrano@example.org'),
(11,11,'Lotte Peeters','Captain','2013-10-02',605.00,NULL),
(12,12,'Yannis Doukas','Captain','1996-04-18',540.00,NULL),
(13,13,'Ruben de Groot','Captain','2020-01-13',615.00,'ruben.degroot@example.org'),
(14,14,'Claire Tremblay','Captain','2016-09-05',645.00,'claire.tremblay@example.org'),
(15,NULL,'Marta Sousa','Captain','2023-02-28',580.00,'marta.sousa@example.org'),
(16,1,'Pieter Jansen','Chief Officer','2015-05-04',410.00,'pieter.jansen@example.org'),
(17,1,'Sanne Bakker','Engineer','2018-03-19',380.00,NULL),
(18,1,'Milo Kramer','Deckhand','2022-06-06',190.00,NULL),
(19,2,'Kari Berg','Engineer','2011-02-14',395.00,'kari.berg@example.org'),
(20,2,'Emil Strand','Deckhand','2023-07-01',185.00,NULL),
(21,3,'Nikos Pappas','Chief Officer','2016-12-01',400.00,NULL),
(22,3,'Dimitra Kosta','Cook','2019-04-09',210.00,'dimitra.kosta@example.org'),
(23,4,'Lena Hoffmann','Engineer','2020-08-17',390.00,'lena.hoffmann@example.org'),
(24,4,'Finn Schulz','Deckhand','2021-01-25',195.00,NULL),
(25,7,'Astrid Haugen','Chief Officer','2014-11-03',420.00,'astrid.haugen@example.org'),
(26,7,'Dara O''Neill','Cook','2017-05-29',215.00,NULL),
(27,9,'Owen Price','engineer','2021-09-13',385.00,'owen.price@example.org'),
(28,11,'Hanne Claes','Deckhand','2022-02-02',190.00,NULL),
(29,14,'Luc Gagnon','Chief Officer','2018-10-22',415.00,'luc.gagnon@example.org'),
(30,NULL,'Rosa Ferreira','Engineer','2024-01-08',370.00,NULL),
(31,NULL,'Aksel Dahl','deckhand','2024-02-19',180.00,'aksel.dahl@example.org'),
(32,10,'Carmen Ruiz','Cook','2012-03-03',220.00,'carmen.ruiz@example.org');
UNLOCK TABLES;

--
-- Table structure for table \`voyages\`
--

DROP TABLE IF EXISTS \`voyages\`;
CREATE TABLE \`voyages\` (
  \`voyage_id\` int(11) NOT NULL,
  \`ship_id\` int(11) NOT NULL,
  \`origin_port_id\` int(11) NOT NULL,
  \`dest_port_id\` int(11) NOT NULL,
  \`departed_at\` datetime NOT NULL,
  \`arrived_at\` datetime DEFAULT NULL,
  \`distance_nm\` int(11) NOT NULL,
  \`status\` varchar(20) NOT NULL,
  PRIMARY KEY (\`voyage_id\`),
  KEY \`ship_id\` (\`ship_id\`),
  KEY \`origin_port_id\` (\`origin_port_id\`),
  KEY \`dest_port_id\` (\`dest_port_id\`),
  CONSTRAINT \`voyages_ibfk_1\` FOREIGN KEY (\`ship_id\`) REFERENCES \`ships\` (\`ship_id\`),
  CONSTRAINT \`voyages_ibfk_2\` FOREIGN KEY (\`origin_port_id\`) REFERENCES \`ports\` (\`port_id\`),
  CONSTRAINT \`voyages_ibfk_3\` FOREIGN KEY (\`dest_port_id\`) REFERENCES \`ports\` (\`port_id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

LOCK TABLES \`voyages\` WRITE;
INSERT INTO \`voyages\` VALUES
(1,1,1,2,'2024-01-03 06:00:00','2024-01-04 14:30:00',290,'arrived'),
(2,1,2,3,'2024-01-06 08:15:00','2024-01-07 10:00:00',340,'arrived'),
(3,2,4,1,'2024-01-10 22:00:00','2024-01-13 05:45:00',560,'arrived'),
(4,3,10,5,'2024-01-12 04:30:00','2024-01-17 19:00:00',1480,'arrived'),
(5,4,2,1,'2024-01-15 12:00:00','2024-01-16 21:20:00',290,'arrived'),
(6,5,9,4,'2024-01-20 07:00:00','2024-01-22 03:10:00',420,'arrived'),
(7,6,7,8,'2024-01-21 18:00:00','2024-01-22 07:30:00',150,'arrived'),
(8,7,12,4,'2024-01-25 09:00:00','2024-01-27 16:00:00',610,'arrived'),
(9,8,6,9,'2024-02-01 05:00:00','2024-02-02 20:40:00',380,'arrived'),
(10,9,8,1,'2024-02-03 11:00:00','2024-02-04 09:15:00',190,'arrived'),
(11,10,5,7,'2024-02-05 14:00:00','2024-02-09 02:00:00',1120,'arrived'),
(12,11,3,8,'2024-02-08 06:30:00','2024-02-09 01:00:00',210,'arrived'),
(13,12,10,6,'2024-02-10 00:00:00',NULL,2650,'cancelled'),
(14,13,1,7,'2024-02-12 16:00:00','2024-02-13 17:30:00',330,'arrived'),
(15,14,11,1,'2024-02-14 03:00:00','2024-02-22 12:00:00',3650,'arrived'),
(16,1,3,1,'2024-02-20 07:45:00','2024-02-20 19:00:00',65,'arrived'),
(17,2,1,4,'2024-02-25 10:00:00','2024-02-27 18:30:00',560,'arrived'),
(18,3,5,10,'2024-03-01 09:30:00','2024-03-06 23:00:00',1480,'arrived'),
(19,4,1,5,'2024-03-03 13:00:00','2024-03-07 08:00:00',1350,'arrived'),
(20,5,4,12,'2024-03-05 05:15:00','2024-03-07 01:00:00',640,'arrived'),
(21,6,8,7,'2024-03-08 20:00:00','2024-03-09 08:45:00',150,'arrived'),
(22,7,4,2,'2024-03-11 08:00:00','2024-03-13 22:10:00',620,'arrived'),
(23,8,9,6,'2024-03-14 06:00:00',NULL,380,'cancelled'),
(24,9,1,2,'2024-03-18 15:30:00','2024-03-19 21:00:00',290,'arrived'),
(25,10,7,5,'2024-03-20 10:00:00','2024-03-24 04:00:00',1120,'arrived'),
(26,11,8,3,'2024-03-25 12:00:00','2024-03-26 04:30:00',210,'arrived'),
(27,13,7,1,'2024-03-27 09:00:00','2024-03-28 11:15:00',330,'arrived'),
(28,14,1,11,'2024-04-02 18:00:00','2024-04-10 22:30:00',3650,'arrived'),
(29,1,1,10,'2024-04-05 06:00:00','2024-04-14 12:00:00',2950,'arrived'),
(30,3,10,2,'2024-04-08 07:00:00','2024-04-16 20:00:00',2780,'arrived'),
(31,4,5,3,'2024-04-12 11:00:00','2024-04-16 15:30:00',1380,'arrived'),
(32,9,2,8,'2024-04-15 05:30:00','2024-04-16 10:00:00',380,'arrived'),
(33,6,7,3,'2024-04-18 22:00:00','2024-04-19 19:40:00',300,'arrived'),
(34,2,4,9,'2024-04-22 08:00:00','2024-04-24 02:00:00',420,'arrived'),
(35,11,3,2,'2024-04-26 10:30:00','2024-04-27 14:00:00',340,'arrived'),
(36,7,2,12,'2024-05-02 09:00:00',NULL,900,'at sea'),
(37,10,5,1,'2024-05-03 06:00:00',NULL,1400,'at sea'),
(38,13,1,8,'2024-05-04 20:00:00',NULL,190,'at sea'),
(39,5,12,4,'2024-05-05 07:00:00',NULL,640,'at sea'),
(40,14,11,7,'2024-05-06 02:00:00',NULL,3400,'at sea');
UNLOCK TABLES;

--
-- Table structure for table \`cargo\`
--

DROP TABLE IF EXISTS \`cargo\`;
CREATE TABLE \`cargo\` (
  \`cargo_id\` int(11) NOT NULL,
  \`voyage_id\` int(11) NOT NULL,
  \`description\` text NOT NULL,
  \`category\` varchar(30) NOT NULL,
  \`weight_t\` decimal(9,2) NOT NULL,
  \`declared_value\` decimal(12,2) DEFAULT NULL,
  \`hazardous\` int(11) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`cargo_id\`),
  KEY \`voyage_id\` (\`voyage_id\`),
  CONSTRAINT \`cargo_ibfk_1\` FOREIGN KEY (\`voyage_id\`) REFERENCES \`voyages\` (\`voyage_id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;

LOCK TABLES \`cargo\` WRITE;
INSERT INTO \`cargo\` VALUES
(1,1,'Spare turbine blades for a wind farm','Machinery',120.50,2400000.00,0),
(2,1,'Bolts of wool fabric','Textiles',35.00,180000.00,0),
(3,2,'Laptop computers, 4000 units','Electronics',28.75,5200000.00,0),
(4,3,'North Sea crude','Crude oil',58000.00,31000000.00,1),
(5,4,'Durum wheat','Grain',41000.00,12300000.00,0),
(6,5,'Industrial pumps','Machinery',310.00,1750000.00,0),
(7,5,'Flat-screen televisions','Electronics',44.20,2100000.00,0),
(8,6,'Frozen cod fillets','Fish',860.00,4100000.00,0),
(9,7,'Family cars, 320 units','Vehicles',420.00,8960000.00,0),
(10,8,'Gas condensate','Crude oil',71000.00,NULL,1),
(11,9,'Sawn pine boards','Timber',5200.00,1300000.00,0),
(12,9,'Malting barley','grain',9800.00,2450000.00,0),
(13,10,'Printed circuit boards','Electronics',12.40,3300000.00,0),
(14,10,'Oak garden furniture','Timber',64.00,96000.00,0),
(15,11,'Valencia oranges','Fruit',2300.00,1840000.00,0),
(16,11,'Olive oil in drums','Food',640.00,2560000.00,0),
(17,12,'Chocolate bars','Food',150.00,900000.00,0),
(18,12,'Sulphuric acid','Chemicals',900.00,270000.00,1),
(19,14,'Electric vans, 150 units','Vehicles',330.00,6750000.00,0),
(20,15,'Softwood logs','TIMBER',12500.00,2100000.00,0),
(21,15,'Frozen snow crab','Fish',480.00,NULL,0),
(22,17,'Refinery feedstock','Crude oil',60500.00,29800000.00,1),
(23,18,'Maize','Grain',38000.00,8740000.00,0),
(24,19,'Tractors, 90 units','Vehicles',810.00,9450000.00,0),
(25,19,'Washing machines','Electronics',95.50,820000.00,0),
(26,20,'Dried salted cod','Fish',310.00,2790000.00,0),
(27,21,'Delivery trucks, 60 units','Vehicles',720.00,5400000.00,0),
(28,22,'Heating oil','Crude oil',48000.00,NULL,1),
(29,24,'Hospital beds','Machinery',42.00,640000.00,0),
(30,24,'Smartphones, 25000 units','Electronics',6.25,9900000.00,0),
(31,25,'Lemons','fruit',1800.00,1260000.00,0),
(32,25,'Paint thinner','Chemicals',210.00,168000.00,1),
(33,26,'Denim rolls','Textiles',88.00,352000.00,0),
(34,27,'Cargo bikes, 800 units','Vehicles',28.00,2400000.00,0),
(35,28,'Pharmaceutical ingredients','Chemicals',17.50,15500000.00,1),
(36,28,'Machine tools','Machinery',260.00,4300000.00,0),
(37,29,'Paper pulp','Timber',21000.00,12600000.00,0),
(38,29,'Fertiliser','Chemicals',15000.00,6750000.00,1),
(39,30,'Soybeans','Grain',52000.00,23400000.00,0),
(40,31,'Tile cutting machines','Machinery',74.00,1110000.00,0),
(41,31,'Grapes','Fruit',960.00,NULL,0),
(42,32,'Server racks','Electronics',18.30,4400000.00,0),
(43,33,'Wine in barrels','Food',410.00,3690000.00,0),
(44,34,'Smoked salmon','Fish',140.00,2380000.00,0),
(45,35,'Cotton towels','Textiles',52.00,208000.00,0),
(46,35,'Oat flakes','Grain',700.00,350000.00,0),
(47,36,'Jet fuel','Crude oil',30500.00,NULL,1),
(48,37,'Almonds','Food',520.00,3120000.00,0),
(49,38,'Wind turbine nacelle','Machinery',410.00,3800000.00,0),
(50,39,'Children''s bicycles, 1200 units','Vehicles',19.80,540000.00,0),
(51,40,'Fishing nets','Textiles',23.00,115000.00,0);
UNLOCK TABLES;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;

-- Dump completed
`;
